echo no shebang
#SBATCH -N 1
