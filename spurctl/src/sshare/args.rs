//! sshare's command line (Slurm 22.05 `src/sshare/sshare.c`), parsed with
//! clap the way getopt_long reads it.

use clap::{ArgAction, Parser};

/// `sshare [OPTIONS]`.
#[derive(Debug, Clone, Default, Parser)]
#[command(
    name = "sshare",
    about = "Tool for listing the shares of associations to a cluster",
    disable_help_flag = true,
    disable_version_flag = true,
    infer_long_args = true,
    args_override_self = true
)]
pub struct SshareArgs {
    /// Every user's rows.
    #[arg(short = 'a', long = "all")]
    pub all: bool,
    /// Only these accounts (spur keeps none: only the root's row).
    #[arg(short = 'A', long = "accounts", value_name = "ACCOUNTS", action = ArgAction::Append)]
    pub accounts: Vec<String>,
    /// List the fields `--format` takes.
    #[arg(short = 'e', long = "helpformat")]
    pub helpformat: bool,
    /// No header.
    #[arg(short = 'n', long = "noheader")]
    pub noheader: bool,
    /// No header (sshare's undocumented twin of `-n`).
    #[arg(short = 'h', hide = true)]
    pub no_header_h: bool,
    /// The normalized usage, level fair-share and TRES minutes too.
    #[arg(short = 'l', long = "long")]
    pub long: bool,
    /// The partition column.
    #[arg(short = 'm', long = "partition")]
    pub partition: bool,
    /// The cluster to ask (spur answers for its own).
    #[arg(
        short = 'M',
        long = "cluster",
        alias = "clusters",
        value_name = "NAMES"
    )]
    pub cluster: Option<String>,
    /// Fields to print (comma separated, `name%width`).
    #[arg(short = 'o', long = "format", value_name = "FIELDS", action = ArgAction::Append)]
    pub format: Vec<String>,
    /// `|` after every field.
    #[arg(short = 'p', long = "parsable")]
    pub parsable: bool,
    /// `|` between fields.
    #[arg(short = 'P', long = "parsable2")]
    pub parsable2: bool,
    /// Only these users (`-1`: every user).
    #[arg(
        short = 'u',
        long = "users",
        value_name = "USERS",
        allow_hyphen_values = true
    )]
    pub users: Option<String>,
    /// Only the users' rows.
    #[arg(short = 'U', long = "Users")]
    pub users_only: bool,
    /// More detail on stderr.
    #[arg(short = 'v', long = "verbose", action = ArgAction::Count)]
    pub verbose: u8,
    /// Print the version.
    #[arg(short = 'V', long = "version")]
    pub version: bool,
    /// Print the usage text.
    #[arg(long = "help")]
    pub help: bool,
    /// Print the usage text.
    #[arg(long = "usage")]
    pub usage: bool,
}

/// `sshare --help` and `--usage`.
pub const USAGE: &str = "\
Usage:  sshare [OPTION]                                                    
  Valid OPTIONs are:                                                       
    -a or --all            list all users                                  
    -A or --accounts=      display specific accounts (comma separated list)
    -e or --helpformat     Print a list of fields that can be specified    
                           with the '--format' option                      
    -l or --long           include normalized usage in output              
    -m or --partition      print the partition part of the association     
    -M or --cluster=names  clusters to issue commands to.                  
                           NOTE: SlurmDBD must be up.                      
    -n or --noheader       omit header from output                         
    -o or --format=        Comma separated list of fields (use             
                           \"--helpformat\" for a list of available fields).
    -p or --parsable       '|' delimited output with a trailing '|'        
    -P or --parsable2      '|' delimited output without a trailing '|'     
    -u or --users=         display specific users (comma separated list)   
    -U or --Users          display only user information                   
    -v or --verbose        display more information                        
    -V or --version        display tool version number                     
          --help           display this usage description                  
          --usage          display this usage description                  
                                                                           

";
