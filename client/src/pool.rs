//! Sessions for a server that asks the controller for many callers at
//! once (the REST server): each request takes an idle [`Session`] or makes
//! one, and gives it back when answered, so that concurrent requests use
//! connections of their own and the controller can take them in one turn.
//! Every session reaches the controller as [`Session::for_credentials`]
//! does; the requests carry their callers' credentials.

use std::sync::Mutex;

use spur_conf::SlurmConf;

use crate::Session;

/// Idle sessions with one controller.
#[derive(Debug)]
pub struct Pool {
    conf: SlurmConf,
    idle: Mutex<Vec<Session>>,
    /// At most this many idle sessions are kept.
    keep: usize,
}

impl Pool {
    /// A pool for the controller of `conf`, keeping up to `keep` idle
    /// sessions (connections) between requests.
    pub fn new(conf: SlurmConf, keep: usize) -> Pool {
        Pool {
            conf,
            idle: Mutex::new(Vec::new()),
            keep: keep.max(1),
        }
    }

    /// The configuration the pool reaches the controller by.
    pub fn conf(&self) -> &SlurmConf {
        &self.conf
    }

    /// Runs `f` with a session of its own, returned to the pool after.
    pub fn with<T>(&self, f: impl FnOnce(&mut Session) -> T) -> T {
        let taken = self.lock().pop();
        let mut session = taken.unwrap_or_else(|| Session::for_credentials(self.conf.clone()));
        let out = f(&mut session);
        let mut idle = self.lock();
        if idle.len() < self.keep {
            idle.push(session);
        }
        out
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Session>> {
        // A panic while holding the list leaves it whole: sessions are
        // only pushed and popped.
        self.idle.lock().unwrap_or_else(|e| e.into_inner())
    }
}
