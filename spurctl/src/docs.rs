//! Every command's clap description as its man page and completions show
//! it: the very `Command` that parses its options, with a note beside each
//! option spur accepts and does not act on. `spurctl --install-docs DIR`
//! writes the pages and completions (`spurd dev` does it for its folder).

use clap::{Command, CommandFactory};

use crate::{
    sacct, sbatch, scancel, scontrol, sdiag, seff, sinfo, sprio, squeue, srun, sshare, sstat,
    unacted,
};

/// Where srun's job-level options are acted on.
const ALLOCATION_ONLY_NOTE: &str = "spur acts on it when srun allocates the job itself; \
     inside an existing allocation it is not acted on.";

/// The commands, in [`crate::COMMANDS`] order.
pub fn commands() -> Vec<Command> {
    let batch: Vec<&str> = unacted::names(unacted::BATCH).collect();
    let srun_unacted: Vec<&str> = unacted::names(unacted::SRUN)
        .chain(srun::args::NEVER_ACTED.iter().copied())
        .collect();
    let srun = spur_man::not_acted(srun::args::command(), &srun_unacted);
    let squeue = spur_man::not_acted(
        squeue::args::SqueueArgs::command(),
        squeue::options::NOT_ACTED,
    )
    .mut_arg("yaml", |a| {
        a.long_help("YAML output: spur prints JSON, a subset of YAML.")
    });
    vec![
        spur_man::not_acted(sbatch::args::command(), &batch),
        spur_man::not_acted(sbatch::alloc::command("salloc"), &batch),
        spur_man::annotate(srun, srun::args::ALLOCATION_ONLY, ALLOCATION_ONLY_NOTE),
        squeue,
        spur_man::not_acted(scancel::args::ScancelArgs::command(), scancel::NOT_ACTED),
        sinfo::args::SinfoArgs::command(),
        scontrol::args::ScontrolArgs::command().after_long_help(scontrol::args::HELP),
        spur_man::not_acted(sacct::args::SacctArgs::command(), sacct::options::NOT_ACTED),
        spur_man::not_acted(sdiag::args::SdiagArgs::command(), sdiag::NOT_ACTED),
        spur_man::not_acted(sprio::args::SprioArgs::command(), sprio::NOT_ACTED),
        spur_man::not_acted(sshare::args::SshareArgs::command(), sshare::NOT_ACTED),
        spur_man::not_acted(sstat::args::SstatArgs::command(), sstat::NOT_ACTED),
        // seff's one option not acted on (-f) has no long name; its help
        // says so.
        seff::args::SeffArgs::command(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_is_a_description_for_every_command() {
        let names: Vec<String> = commands()
            .iter()
            .map(|c| c.get_name().to_string())
            .collect();
        assert_eq!(names, crate::COMMANDS);
    }

    #[test]
    fn every_page_names_every_option_its_parser_accepts() {
        for cmd in commands() {
            let pages = spur_man::pages(&cmd).expect("renders");
            assert_eq!(pages.len(), 1, "{}", cmd.get_name());
            let text = spur_man::plain(&pages[0].bytes);
            let missing = spur_man::missing_options(&cmd, &text);
            assert!(missing.is_empty(), "{}: {missing:?}", cmd.get_name());
            assert!(text.contains(".SH OPTIONS"), "{}", cmd.get_name());
        }
    }

    #[test]
    fn pages_say_which_options_spur_does_not_act_on() {
        let page = |name: &str| {
            let cmd = commands()
                .into_iter()
                .find(|c| c.get_name() == name)
                .expect("command");
            spur_man::plain(&spur_man::pages(&cmd).expect("renders")[0].bytes)
        };
        let sbatch = page("sbatch");
        let note = spur_man::NOT_ACTED_NOTE;
        assert!(
            sbatch.contains(&format!("mail on these job events. {note}")),
            "{sbatch}"
        );
        // An option sbatch acts on carries no note.
        assert!(
            sbatch.contains("Memory per node (0: all of it)\n"),
            "{sbatch}"
        );
        let srun = page("srun");
        assert!(srun.contains(&format!("run task zero in a pseudo terminal. {note}")));
        assert!(srun.contains(&format!("Partition to allocate in. {ALLOCATION_ONLY_NOTE}")));
        assert!(srun.contains(&format!("Task to CPU binding. {note}")));
        let squeue = page("squeue");
        assert!(squeue.contains(note), "{squeue}");
        let scontrol = page("scontrol");
        assert!(scontrol.contains("show <ENTITY> [<ID>]"), "{scontrol}");
    }

    #[test]
    fn completions_offer_every_command_its_options() {
        for cmd in commands() {
            let longs: Vec<&str> = cmd
                .get_arguments()
                .filter(|a| !a.is_hide_set())
                .filter_map(|a| a.get_long())
                .collect();
            assert!(!longs.is_empty(), "{}", cmd.get_name());
            for doc in spur_man::completions(&cmd) {
                let text = String::from_utf8(doc.bytes).expect("utf-8");
                for long in &longs {
                    assert!(text.contains(long), "{}: {long}", doc.path.display());
                }
            }
        }
    }
}
