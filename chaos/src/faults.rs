//! The faults: the controller killed with SIGKILL at random moments, or
//! started armed to kill itself inside a commit or between a commit and
//! its answers; agents killed with SIGKILL while their jobs run. Each is
//! restarted after 0 to 3 s.

use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Result;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::cluster::{Arming, Cluster, KillResult};

/// How many faults of each kind were dealt.
#[derive(Debug, Default, Clone)]
pub struct Dealt {
    /// Controller killed from outside.
    pub controller_killed: u32,
    /// Controller died at its commit failpoint.
    pub died_in_commit: u32,
    /// Controller died between commit and answers.
    pub died_before_answer: u32,
    /// Controller deaths no fault explains (an exit, a panic, another
    /// signal), as the exit statuses.
    pub crashes: Vec<String>,
}

impl Dealt {
    /// Every controller death.
    pub fn controller_deaths(&self) -> u32 {
        self.controller_killed + self.died_in_commit + self.died_before_answer
    }

    fn killed(&mut self) {
        self.controller_killed += 1;
    }

    /// A controller that died by itself: by its failpoint (SIGKILL, and
    /// armed), or a crash.
    fn died(&mut self, arming: Arming, status: ExitStatus) {
        let by_failpoint = status.signal() == Some(libc::SIGKILL);
        match arming {
            Arming::Commit(_) if by_failpoint => self.died_in_commit += 1,
            Arming::Answer(_) if by_failpoint => self.died_before_answer += 1,
            _ => self.crashes.push(status.to_string()),
        }
    }
}

/// A pause of 0 to 3 s before a restart.
fn restart_pause(rng: &mut StdRng) -> Duration {
    Duration::from_millis(rng.gen_range(0..=3000))
}

/// A wait drawn around `mean` seconds (half to one and a half times it).
fn around(rng: &mut StdRng, mean: f64) -> Duration {
    Duration::from_secs_f64(mean * rng.gen_range(0.5..1.5))
}

/// How the next controller starts: armed for a failpoint two times in
/// five, within its next 1 to 60 commits.
fn next_arming(rng: &mut StdRng) -> Arming {
    match rng.gen_range(0..5) {
        0 => Arming::Commit(rng.gen_range(1..=60)),
        1 => Arming::Answer(rng.gen_range(1..=60)),
        _ => Arming::None,
    }
}

/// Kills the controller every `mean` seconds or so until `stop`, and
/// restarts one that died by itself; leaves an unarmed controller running.
pub fn controller_killer(c: &Cluster, mean: f64, seed: u64, stop: &AtomicBool) -> Result<Dealt> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut dealt = Dealt::default();
    let mut next_kill = Instant::now() + around(&mut rng, mean);
    while !stop.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(50));
        if let Some((arming, status)) = c.controller_died() {
            dealt.died(arming, status);
            std::thread::sleep(restart_pause(&mut rng));
            c.start_controller(next_arming(&mut rng))?;
            continue;
        }
        if Instant::now() < next_kill {
            continue;
        }
        match c.kill_controller() {
            KillResult::Killed(_) => dealt.killed(),
            KillResult::AlreadyDead(a, status) => dealt.died(a, status),
            KillResult::NoneRunning => {}
        }
        std::thread::sleep(restart_pause(&mut rng));
        c.start_controller(next_arming(&mut rng))?;
        next_kill = Instant::now() + around(&mut rng, mean);
    }
    // The run is over: an armed controller would die while jobs settle.
    if let Some((arming, status)) = c.controller_died() {
        dealt.died(arming, status);
        c.start_controller(Arming::None)?;
    } else if c.controller_arming() != Some(Arming::None) {
        match c.kill_controller() {
            KillResult::Killed(_) => dealt.killed(),
            KillResult::AlreadyDead(a, status) => dealt.died(a, status),
            KillResult::NoneRunning => {}
        }
        c.start_controller(Arming::None)?;
    }
    Ok(dealt)
}

/// Kills a random agent every `mean` seconds or so until `stop`, each
/// restarted after 0 to 3 s.
pub fn agent_killer(c: &Cluster, mean: f64, seed: u64, stop: &AtomicBool) -> Result<u32> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut killed = 0;
    let mut next_kill = Instant::now() + around(&mut rng, mean);
    while !stop.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(50));
        if Instant::now() < next_kill {
            continue;
        }
        let i = rng.gen_range(0..c.nodes());
        c.kill_agent(i);
        killed += 1;
        std::thread::sleep(restart_pause(&mut rng));
        c.start_agent(i)?;
        next_kill = Instant::now() + around(&mut rng, mean);
    }
    Ok(killed)
}
