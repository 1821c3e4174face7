//! sdiag's report of the controller's counters (`src/sdiag/sdiag.c` of
//! Slurm 22.05): the header, the job counts, the main and backfill
//! scheduling statistics, and the request tables in the order sdiag sorts
//! them, by its own exchange sort, so that ties fall as they fall in
//! Slurm's.

use std::fmt::Write;

use spur_proto::{RpcCount, Stats, UserCount};
use spur_slurm::time::ctime;

/// How the request tables are ordered (`-i`, `-t`, `-T`; by count
/// otherwise).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RpcOrder {
    /// The most served first.
    #[default]
    Count,
    /// By message type number or uid (`-i`).
    Id,
    /// The most time in all first (`-t`).
    Time,
    /// The most time per request first (`-T`).
    AverageTime,
}

/// sdiag's text for `stats`, the request tables in `order`, each user
/// named by `user_name` (the uid's digits when it has no name).
pub fn render(stats: &Stats, order: RpcOrder, user_name: &dyn Fn(u32) -> String) -> String {
    let mut out = String::with_capacity(4096);
    let s = stats;
    let stars = "*******************************************************";
    let _ = writeln!(out, "{stars}");
    let _ = writeln!(out, "sdiag output at {} ({})", ctime(s.now), s.now);
    let _ = writeln!(out, "Data since      {} ({})", ctime(s.since), s.since);
    let _ = writeln!(out, "{stars}");
    let _ = writeln!(out, "Server thread count:  {}", s.server_threads);
    let _ = writeln!(out, "Agent queue size:     {}", s.agent_queue);
    let _ = writeln!(out, "Agent count:          {}", s.agents);
    // spur's controller sends to its agents from its own turn, over the
    // connections they keep open: it has no agent threads and no slurmdbd.
    let _ = writeln!(out, "Agent thread count:   0");
    let _ = writeln!(out, "DBD Agent queue size: 0\n");

    let _ = writeln!(out, "Jobs submitted: {}", s.jobs_submitted);
    let _ = writeln!(out, "Jobs started:   {}", s.jobs_started);
    let _ = writeln!(out, "Jobs completed: {}", s.jobs_completed);
    let _ = writeln!(out, "Jobs canceled:  {}", s.jobs_canceled);
    let _ = writeln!(out, "Jobs failed:    {}\n", s.jobs_failed);

    let _ = writeln!(out, "Job states ts:  {} ({})", ctime(s.now), s.now);
    let _ = writeln!(out, "Jobs pending:   {}", s.jobs_pending);
    let _ = writeln!(out, "Jobs running:   {}", s.jobs_running);

    let m = &s.sched;
    out.push_str("\nMain schedule statistics (microseconds):\n");
    let _ = writeln!(out, "\tLast cycle:   {}", m.last_us);
    let _ = writeln!(out, "\tMax cycle:    {}", m.max_us);
    let _ = writeln!(out, "\tTotal cycles: {}", m.cycles);
    let cycles = u64::from(m.cycles);
    mean(&mut out, "\tMean cycle:   ", m.sum_us, cycles);
    mean(&mut out, "\tMean depth cycle:  ", m.depth_sum, cycles);
    let span = s.now.saturating_sub(s.since);
    if span > 60 {
        let _ = writeln!(out, "\tCycles per minute: {}", cycles / (span / 60));
    }
    let _ = writeln!(out, "\tLast queue length: {}", m.last_queue_len);

    let b = &s.backfill;
    let bf_cycles = u64::from(b.cycles);
    out.push_str("\nBackfilling stats\n");
    let _ = writeln!(
        out,
        "\tTotal backfilled jobs (since last slurm start): {}",
        b.jobs_total
    );
    let _ = writeln!(
        out,
        "\tTotal backfilled jobs (since last stats cycle start): {}",
        b.jobs
    );
    // spur has no heterogeneous jobs.
    out.push_str("\tTotal backfilled heterogeneous job components: 0\n");
    let _ = writeln!(out, "\tTotal cycles: {}", b.cycles);
    if b.last_when > 0 {
        let _ = writeln!(
            out,
            "\tLast cycle when: {} ({})",
            ctime(b.last_when),
            b.last_when
        );
    } else {
        out.push_str("\tLast cycle when: N/A\n");
    }
    let _ = writeln!(out, "\tLast cycle: {}", b.last_us);
    let _ = writeln!(out, "\tMax cycle:  {}", b.max_us);
    mean(&mut out, "\tMean cycle: ", b.sum_us, bf_cycles);
    let _ = writeln!(out, "\tLast depth cycle: {}", b.last_depth);
    let _ = writeln!(out, "\tLast depth cycle (try sched): {}", b.last_depth_try);
    mean(&mut out, "\tDepth Mean: ", b.depth_sum, bf_cycles);
    mean(
        &mut out,
        "\tDepth Mean (try depth): ",
        b.depth_try_sum,
        bf_cycles,
    );
    let _ = writeln!(out, "\tLast queue length: {}", b.queue_len);
    mean(
        &mut out,
        "\tQueue length mean: ",
        b.queue_len_sum,
        bf_cycles,
    );
    let _ = writeln!(out, "\tLast table size: {}", b.table_size);
    mean(&mut out, "\tMean table size: ", b.table_size_sum, bf_cycles);

    let _ = writeln!(
        out,
        "\nLatency for 1000 calls to gettimeofday(): {} microseconds",
        s.clock_latency_us
    );

    out.push_str("\nRemote Procedure Call statistics by message type\n");
    for (r, average) in sorted(&s.by_type, order, type_key) {
        let _ = writeln!(
            out,
            "\t{:<40}({:5}) count:{:<6} ave_time:{:<6} total_time:{}",
            r.name, r.type_id, r.count, average, r.total_us
        );
    }
    out.push_str("\nRemote Procedure Call statistics by user\n");
    for (u, average) in sorted(&s.by_user, order, user_key) {
        let _ = writeln!(
            out,
            "\t{:<16}({:8}) count:{:<6} ave_time:{:<6} total_time:{}",
            user_name(u.uid),
            u.uid,
            u.count,
            average,
            u.total_us
        );
    }
    // Requests are served as they come: none waits in a queue.
    out.push_str("\nPending RPC statistics\n\tNo pending RPCs\n");
    out
}

/// `label` and the mean of `sum` over `cycles`, on a line of its own;
/// nothing when there were no cycles.
fn mean(out: &mut String, label: &str, sum: u64, cycles: u64) {
    if let Some(mean) = sum.checked_div(cycles) {
        let _ = writeln!(out, "{label}{mean}");
    }
}

/// A table row's id, count and total time.
type Key = (u32, u32, u64);

fn type_key(r: &RpcCount) -> Key {
    (u32::from(r.type_id), r.count, r.total_us)
}

fn user_key(u: &UserCount) -> Key {
    (u.uid, u.count, u.total_us)
}

/// The rows in `order`, each with its mean time (32 bits, as sdiag keeps
/// it), ordered by sdiag's exchange sort: the same ties as Slurm's.
fn sorted<T>(rows: &[T], order: RpcOrder, key: fn(&T) -> Key) -> Vec<(&T, u32)> {
    let mut rows: Vec<(&T, u32)> = rows
        .iter()
        .map(|row| {
            let (_, count, total) = key(row);
            let average = total.checked_div(u64::from(count)).unwrap_or(0);
            (row, average as u32)
        })
        .collect();
    // Whether the row at i must give way to the row at j, for i < j.
    let swap = |a: &(&T, u32), b: &(&T, u32)| {
        let (ka, kb) = (key(a.0), key(b.0));
        match order {
            RpcOrder::Count => ka.1 < kb.1,
            RpcOrder::Id => ka.0 > kb.0,
            RpcOrder::Time => ka.2 < kb.2,
            RpcOrder::AverageTime => a.1 < b.1,
        }
    };
    for i in 0..rows.len() {
        for j in i + 1..rows.len() {
            if swap(&rows[i], &rows[j]) {
                rows.swap(i, j);
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rpc(type_id: u16, name: &str, count: u32, total_us: u64) -> RpcCount {
        RpcCount {
            type_id,
            name: name.into(),
            count,
            total_us,
        }
    }

    fn order_of(rows: &[RpcCount], order: RpcOrder) -> Vec<u16> {
        sorted(rows, order, type_key)
            .into_iter()
            .map(|(r, _)| r.type_id)
            .collect()
    }

    #[test]
    fn request_tables_are_sorted_as_sdiag_sorts_them() {
        let rows = [
            rpc(2009, "REQUEST_PARTITION_INFO", 3, 900),
            rpc(1002, "MESSAGE_NODE_REGISTRATION_STATUS", 5, 500),
            rpc(2007, "REQUEST_NODE_INFO", 3, 1200),
            rpc(4003, "REQUEST_SUBMIT_BATCH_JOB", 3, 300),
        ];
        assert_eq!(order_of(&rows, RpcOrder::Count), [1002, 2009, 2007, 4003]);
        assert_eq!(order_of(&rows, RpcOrder::Id), [1002, 2007, 2009, 4003]);
        assert_eq!(order_of(&rows, RpcOrder::Time), [2007, 2009, 1002, 4003]);
        assert_eq!(
            order_of(&rows, RpcOrder::AverageTime),
            [2007, 2009, 1002, 4003]
        );
    }

    #[test]
    fn ties_fall_where_the_exchange_sort_leaves_them() {
        // Row 2 moves to the front, then to the back when row 4 takes its
        // place: the two rows of count 2 end up in the other order than a
        // stable sort leaves them.
        let rows = [
            rpc(1, "A", 1, 0),
            rpc(2, "B", 2, 0),
            rpc(3, "C", 2, 0),
            rpc(4, "D", 3, 0),
        ];
        assert_eq!(order_of(&rows, RpcOrder::Count), [4, 3, 2, 1]);
    }
}
