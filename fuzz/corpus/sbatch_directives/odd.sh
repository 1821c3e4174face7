#!/bin/sh
#SBATCH --wrap="a
#SBATCH --array=0-99999999%0
#SBATCH --mem=99999999999999T
#SBATCH
#SBATCH "unterminated
