#!/bin/bash
#SBATCH -N 1
echo hi
