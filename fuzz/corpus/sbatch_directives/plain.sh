#!/bin/bash
#SBATCH -N 2 --gpus-per-node=4
#SBATCH --time=1:00:00
#SBATCH -J "a name" --output=out-%j.txt
srun hostname
