//! One scontrol session: the flags that commands toggle (`oneliner`,
//! `details`, `quiet`), what it knows of the site (slurm.conf), the
//! controller it asks, and the text and exit code it builds up. Commands
//! write here instead of printing, so tests can run them against a fake
//! controller.

use std::path::PathBuf;

use crate::controller::RequestError;
use spur_report::show::ShowOpts;
use spur_slurm::locale::Locale;

/// What scontrol reads from slurm.conf.
#[derive(Debug, Clone)]
pub struct Site {
    /// SlurmdPort.
    pub slurmd_port: u16,
    /// SlurmctldHost names, primary first.
    pub controllers: Vec<String>,
    /// TopologyPlugin.
    pub topology_plugin: String,
    /// topology.conf, next to slurm.conf.
    pub topology_file: Option<PathBuf>,
}

impl Default for Site {
    fn default() -> Site {
        Site {
            slurmd_port: 6818,
            controllers: Vec::new(),
            topology_plugin: "topology/none".to_string(),
            topology_file: None,
        }
    }
}

impl Site {
    /// Reads slurm.conf (`$SLURM_CONF` or /etc/slurm/slurm.conf); Slurm's
    /// defaults when it cannot be read (the request then reports why).
    pub fn load() -> Site {
        let path = spur_conf::slurm_conf_path();
        let Ok(conf) = spur_client::load_conf(&path) else {
            return Site::default();
        };
        Site {
            slurmd_port: conf.slurmd_port,
            controllers: conf
                .slurmctld_hosts
                .iter()
                .map(|h| h.name.clone())
                .collect(),
            topology_plugin: conf.topology_plugin.clone(),
            topology_file: path.parent().map(|d| d.join("topology.conf")),
        }
    }
}

/// How a session reaches the controller.
pub type Ask<'a> = dyn crate::controller::Controller + 'a;

/// The state of one scontrol run.
pub struct Session<'a> {
    /// `-o` / `oneliner`.
    pub one_liner: bool,
    /// `-d` / `details`.
    pub details: bool,
    /// `-Q` (1), `-v` (-1) or neither (0), as Slurm's `quiet_flag`.
    pub quiet: i8,
    /// The site configuration.
    pub site: Site,
    /// Times and users.
    pub locale: Locale,
    /// The time `show config` reports.
    pub now: u64,
    /// The uid running scontrol (root gets the RESTORE banner).
    pub uid: u32,
    /// The controller.
    pub ask: Box<Ask<'a>>,
    /// Text for stdout.
    pub out: String,
    /// Text for stderr.
    pub err: String,
    /// The exit code so far.
    pub exit_code: u8,
    /// `exit` / `quit` was given.
    pub done: bool,
}

impl<'a> Session<'a> {
    /// A session with default flags.
    pub fn new(site: Site, locale: Locale, now: u64, uid: u32, ask: Box<Ask<'a>>) -> Session<'a> {
        Session {
            one_liner: false,
            details: false,
            quiet: 0,
            site,
            locale,
            now,
            uid,
            ask,
            out: String::new(),
            err: String::new(),
            exit_code: 0,
            done: false,
        }
    }

    /// How records are shown.
    pub fn show_opts(&self) -> ShowOpts {
        ShowOpts {
            one_liner: self.one_liner,
            details: self.details,
        }
    }

    /// Marks the run failed and writes `text` to stderr unless quiet.
    pub fn fail(&mut self, text: &str) {
        self.exit_code = 1;
        if self.quiet != 1 {
            self.err.push_str(text);
        }
    }

    /// Slurm's `slurm_perror(what)` after a failed request, exit 1.
    pub fn perror(&mut self, what: &str, e: &RequestError) {
        self.fail(&format!("{what}: {e}\n"));
    }

    /// Takes what was written so far (for printing between commands).
    pub fn take_output(&mut self) -> (String, String) {
        (std::mem::take(&mut self.out), std::mem::take(&mut self.err))
    }
}
