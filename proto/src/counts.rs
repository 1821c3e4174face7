//! Per-node counts as Slurm writes them in job variables
//! (SLURM_JOB_CPUS_PER_NODE, SLURM_TASKS_PER_NODE): `4(x2),2`.

/// `4(x2)`, `4,2`, `4(x2),2`: runs of equal counts compressed.
pub fn compress_counts(counts: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < counts.len() {
        let run = counts[i..].iter().take_while(|&&c| c == counts[i]).count();
        if run > 1 {
            parts.push(format!("{}(x{run})", counts[i]));
        } else {
            parts.push(counts[i].to_string());
        }
        i += run;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_node_counts_compress_like_slurm() {
        assert_eq!(compress_counts(&[4, 4]), "4(x2)");
        assert_eq!(compress_counts(&[4]), "4");
        assert_eq!(compress_counts(&[4, 4, 2]), "4(x2),2");
        assert_eq!(compress_counts(&[1, 2, 3]), "1,2,3");
        assert_eq!(compress_counts(&[]), "");
    }
}
