//! Slurm's file name patterns (`-o`, `-e`, `-i`): `%A %a %J %j %N %n %s %t
//! %u %x %%`, with an optional zero-padding width (`%4j`). Owns expansion
//! only; the node decides what the values are.

/// The values a pattern may refer to.
#[derive(Debug, Clone, Default)]
pub struct PatternValues<'a> {
    /// `%j`.
    pub job_id: u32,
    /// `%A`: the array's master id (the job id when not an array).
    pub array_job_id: Option<u32>,
    /// `%a`: the array task id.
    pub array_task_id: Option<u32>,
    /// `%s`: the step (`batch` for the batch script).
    pub step: Option<&'a str>,
    /// `%N`: the short host name of the node.
    pub node: &'a str,
    /// `%n`: the node's index in the allocation.
    pub node_index: u32,
    /// `%t`: the task's rank.
    pub task: u32,
    /// `%u`: the user's name.
    pub user: &'a str,
    /// `%x`: the job name.
    pub job_name: &'a str,
}

/// Slurm prints NO_VAL (0xfffffffe) for `%a` outside an array.
const NO_VAL: u32 = 0xffff_fffe;

/// Expands `pattern`. Unknown `%` sequences are kept as written, as Slurm
/// does; a `\` before `%` keeps the `%` literal.
pub fn expand(pattern: &str, v: &PatternValues<'_>) -> String {
    let bytes = pattern.as_bytes();
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'\\' && bytes.get(i + 1) == Some(&b'%') {
            out.push('%');
            i += 2;
            continue;
        }
        if c != b'%' {
            let ch = pattern[i..]
                .chars()
                .next()
                .expect("index is on a char boundary");
            out.push(ch);
            i += ch.len_utf8();
            continue;
        }
        let start = i;
        i += 1;
        let digits = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        let width: usize = pattern[i..i + digits].parse().unwrap_or(0).min(10);
        i += digits;
        let Some(&code) = bytes.get(i) else {
            out.push_str(&pattern[start..]);
            break;
        };
        i += 1;
        let number = |n: u32| format!("{n:0width$}");
        match code {
            b'%' => out.push('%'),
            b'j' => out.push_str(&number(v.job_id)),
            b'A' => out.push_str(&number(v.array_job_id.unwrap_or(v.job_id))),
            b'a' => out.push_str(&number(v.array_task_id.unwrap_or(NO_VAL))),
            b'J' => match v.step {
                Some(step) => out.push_str(&format!("{}.{step}", number(v.job_id))),
                None => out.push_str(&number(v.job_id)),
            },
            b's' => out.push_str(v.step.unwrap_or("batch")),
            b'N' => out.push_str(v.node),
            b'n' => out.push_str(&number(v.node_index)),
            b't' => out.push_str(&number(v.task)),
            b'u' => out.push_str(v.user),
            b'x' => out.push_str(v.job_name),
            _ => out.push_str(&pattern[start..i]),
        }
    }
    out
}

/// Slurm's default output pattern: `slurm-%j.out`, or `slurm-%A_%a.out` for
/// an array task.
pub fn default_output(is_array: bool) -> &'static str {
    if is_array {
        "slurm-%A_%a.out"
    } else {
        "slurm-%j.out"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values() -> PatternValues<'static> {
        PatternValues {
            job_id: 25,
            node: "vm",
            user: "anchor",
            job_name: "patname",
            ..Default::default()
        }
    }

    #[test]
    fn the_recorded_patterns_expand_as_slurm_expands_them() {
        // ../shared/slurm-reference/80-output-file-patterns.txt
        assert_eq!(
            expand("pat-x=%x-j=%j-u=%u-N=%N-n=%n.txt", &values()),
            "pat-x=patname-j=25-u=anchor-N=vm-n=0.txt"
        );
        let task = PatternValues {
            job_id: 30,
            array_job_id: Some(26),
            array_task_id: Some(3),
            job_name: "patarr",
            ..values()
        };
        assert_eq!(
            expand("pat-A=%A-a=%a-j=%j-x=%x.txt", &task),
            "pat-A=26-a=3-j=30-x=patarr.txt"
        );
        assert_eq!(expand(default_output(true), &task), "slurm-26_3.out");
        assert_eq!(expand(default_output(false), &values()), "slurm-25.out");
    }

    #[test]
    fn widths_pad_with_zeros_and_unknown_codes_stay() {
        assert_eq!(expand("%4j-%%-%q-%", &values()), "0025-%-%q-%");
        assert_eq!(expand("a\\%j", &values()), "a%j");
        assert_eq!(expand("é%j", &values()), "é25");
    }
}
