//! The squeue outputs recorded from real Slurm 22.05.8
//! (../shared/slurm-reference/, command line and exit status removed), that
//! the golden tests in tests.rs must reproduce byte for byte. Test data only.

/// `squeue` (10-squeue-default.txt).
pub const DEFAULT: &str = r#"             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)
         8_[2-9%2]     batch      arr   anchor PD       0:00      1 (JobArrayTaskLimit)
                11     batch whole-cl   anchor PD       0:00     72 (Resources)
                13     batch after-bi   anchor PD       0:00      1 (Dependency)
                12     batch     held   anchor PD       0:00      1 (JobHeldUser)
                 1     batch     wrap   anchor  R       0:05      1 gb001
                 2     batch     wrap   anchor  R       0:05      1 gb001
                 5     batch   big2x4   anchor  R       0:05      2 gb[001-002]
                 6     batch  one-gpu   anchor  R       0:05      1 gb003
               8_0     batch      arr   anchor  R       0:05      1 gb001
               8_1     batch      arr   anchor  R       0:05      1 gb001
                 7     debug      dbg   anchor  R       0:05      1 gb003
"#;

/// `squeue -o '%i %j %T %D %R'` (11-squeue-custom.txt).
pub const CUSTOM: &str = r#"JOBID NAME STATE NODES NODELIST(REASON)
8_[2-9%2] arr PENDING 1 (JobArrayTaskLimit)
11 whole-cluster PENDING 72 (Resources)
13 after-big PENDING 1 (Dependency)
12 held PENDING 1 (JobHeldUser)
1 wrap RUNNING 1 gb001
2 wrap RUNNING 1 gb001
5 big2x4 RUNNING 2 gb[001-002]
6 one-gpu RUNNING 1 gb003
8_0 arr RUNNING 1 gb001
8_1 arr RUNNING 1 gb001
7 dbg RUNNING 1 gb003
"#;

/// `squeue -o '%.10i %.9P %.12j %.8u %.2t %.10M %.10l %.6D %b %R'` (12-squeue-custom2.txt).
pub const CUSTOM2: &str = r#"     JOBID PARTITION         NAME     USER ST       TIME TIME_LIMIT  NODES TRES_PER_NODE NODELIST(REASON)
 8_[2-9%2]     batch          arr   anchor PD       0:00       5:00      1 N/A (JobArrayTaskLimit)
        11     batch whole-cluste   anchor PD       0:00    1:00:00     72 gres:gpu:4 (Resources)
        13     batch    after-big   anchor PD       0:00  UNLIMITED      1 N/A (Dependency)
        12     batch         held   anchor PD       0:00  UNLIMITED      1 N/A (JobHeldUser)
         1     batch         wrap   anchor  R       0:05  UNLIMITED      1 N/A gb001
         2     batch         wrap   anchor  R       0:05  UNLIMITED      1 N/A gb001
         5     batch       big2x4   anchor  R       0:05    2:00:00      2 gres:gpu:4 gb[001-002]
         6     batch      one-gpu   anchor  R       0:05      30:00      1 N/A gb003
       8_0     batch          arr   anchor  R       0:05       5:00      1 N/A gb001
       8_1     batch          arr   anchor  R       0:05       5:00      1 N/A gb001
         7     debug          dbg   anchor  R       0:05      10:00      1 gres:gpu:2 gb003
"#;

/// `squeue -l` (13-squeue-long.txt).
pub const LONG: &str = r#"Sun Nov 29 23:05:03 2026
             JOBID PARTITION     NAME     USER    STATE       TIME TIME_LIMI  NODES NODELIST(REASON)
         8_[2-9%2]     batch      arr   anchor  PENDING       0:00      5:00      1 (JobArrayTaskLimit)
                11     batch whole-cl   anchor  PENDING       0:00   1:00:00     72 (Resources)
                13     batch after-bi   anchor  PENDING       0:00 UNLIMITED      1 (Dependency)
                12     batch     held   anchor  PENDING       0:00 UNLIMITED      1 (JobHeldUser)
                 1     batch     wrap   anchor  RUNNING       0:05 UNLIMITED      1 gb001
                 2     batch     wrap   anchor  RUNNING       0:05 UNLIMITED      1 gb001
                 5     batch   big2x4   anchor  RUNNING       0:05   2:00:00      2 gb[001-002]
                 6     batch  one-gpu   anchor  RUNNING       0:05     30:00      1 gb003
               8_0     batch      arr   anchor  RUNNING       0:05      5:00      1 gb001
               8_1     batch      arr   anchor  RUNNING       0:05      5:00      1 gb001
                 7     debug      dbg   anchor  RUNNING       0:05     10:00      1 gb003
"#;

/// `squeue -t PD` (14-squeue-pending.txt).
pub const PENDING: &str = r#"             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)
         8_[2-9%2]     batch      arr   anchor PD       0:00      1 (JobArrayTaskLimit)
                11     batch whole-cl   anchor PD       0:00     72 (Resources)
                13     batch after-bi   anchor PD       0:00      1 (Dependency)
                12     batch     held   anchor PD       0:00      1 (JobHeldUser)
"#;

/// `squeue -r -j 8` (15-squeue-array-expanded.txt).
pub const ARRAY_EXPANDED: &str = r#"             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)
               8_2     batch      arr   anchor PD       0:00      1 (JobArrayTaskLimit)
               8_3     batch      arr   anchor PD       0:00      1 (JobArrayTaskLimit)
               8_4     batch      arr   anchor PD       0:00      1 (JobArrayTaskLimit)
               8_5     batch      arr   anchor PD       0:00      1 (JobArrayTaskLimit)
               8_6     batch      arr   anchor PD       0:00      1 (JobArrayTaskLimit)
               8_7     batch      arr   anchor PD       0:00      1 (JobArrayTaskLimit)
               8_8     batch      arr   anchor PD       0:00      1 (JobArrayTaskLimit)
               8_9     batch      arr   anchor PD       0:00      1 (JobArrayTaskLimit)
               8_1     batch      arr   anchor  R       0:05      1 gb001
               8_0     batch      arr   anchor  R       0:05      1 gb001
"#;

/// `squeue -j 8` (16-squeue-array-compact.txt).
pub const ARRAY_COMPACT: &str = r#"             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)
         8_[2-9%2]     batch      arr   anchor PD       0:00      1 (JobArrayTaskLimit)
               8_1     batch      arr   anchor  R       0:05      1 gb001
               8_0     batch      arr   anchor  R       0:05      1 gb001
"#;

/// `squeue --start` (17-squeue-start.txt).
pub const START: &str = r#"             JOBID PARTITION     NAME     USER ST          START_TIME  NODES SCHEDNODES           NODELIST(REASON)
         8_[2-9%2]     batch      arr   anchor PD                 N/A      1 (null)               (JobArrayTaskLimit)
                11     batch whole-cl   anchor PD                 N/A     72 (null)               (Resources)
                12     batch     held   anchor PD                 N/A      1 (null)               (JobHeldUser)
                13     batch after-bi   anchor PD                 N/A      1 (null)               (Dependency)
"#;

/// `squeue -O 'JobID,Name:20,State,NumNodes,TresPerNode,ReasonList'` (19-squeue-format-long.txt).
pub const FORMAT_LONG: &str = r#"squeue: error: Invalid job format specification: TresPerNode
JOBID               NAME                STATE               NODES               NODELIST(REASON)    
8                   arr                 PENDING             1                   (JobArrayTaskLimit) 
11                  whole-cluster       PENDING             72                  (Resources)         
13                  after-big           PENDING             1                   (Dependency)        
12                  held                PENDING             1                   (JobHeldUser)       
1                   wrap                RUNNING             1                   gb001               
2                   wrap                RUNNING             1                   gb001               
5                   big2x4              RUNNING             2                   gb[001-002]         
6                   one-gpu             RUNNING             1                   gb003               
9                   arr                 RUNNING             1                   gb001               
10                  arr                 RUNNING             1                   gb001               
7                   dbg                 RUNNING             1                   gb003               
"#;

/// `squeue -h -u anchor -o '%A %i %t'` (19b-squeue-noheader-user.txt).
pub const NOHEADER_USER: &str = r#"8 8_[2-9%2] PD
11 11 PD
13 13 PD
12 12 PD
1 1 R
2 2 R
5 5 R
6 6 R
9 8_0 R
10 8_1 R
7 7 R
"#;

/// `scontrol release 12; scontrol hold 12; squeue -j 12 -o '%i %T %R'` (44-scontrol-hold-release.txt).
pub const HELD: &str = r#"JOBID STATE NODELIST(REASON)
12 PENDING (JobHeldUser)
"#;

/// `scontrol update JobId=12 TimeLimit=10; squeue -j 12 -o '%i %l'` (45-scontrol-update-timelimit.txt).
pub const TIME_LIMIT: &str = r#"JOBID TIME_LIMIT
12 10:00
"#;

/// `squeue -j 13 -o '%i %j %T %R %E'` (50-dependency-pending.txt).
pub const DEPENDENCY: &str = r#"JOBID NAME STATE NODELIST(REASON) DEPENDENCY
13 after-big PENDING (Dependency) afterok:5(unfulfilled)
"#;

/// `scancel 5; sleep 2; squeue -j 5,13 -o '%i %j %T %R'` (51-scancel.txt).
pub const AFTER_CANCEL: &str = r#"JOBID NAME STATE NODELIST(REASON)
13 after-big PENDING (DependencyNeverSatisfied)
"#;

/// `squeue -o '%i %j %T %R'` (78-accepted-but-unrunnable.txt).
pub const NEVER_SATISFIED: &str = r#"JOBID NAME STATE NODELIST(REASON)
8_[2-8%2] arr PENDING (JobArrayTaskLimit)
13 after-big PENDING (DependencyNeverSatisfied)
18 wrap PENDING (PartitionNodeLimit)
12 held PENDING (JobHeldUser)
1 wrap RUNNING gb001
2 wrap RUNNING gb001
8_0 arr RUNNING gb001
8_1 arr RUNNING gb001
20 wrap PENDING (PartitionTimeLimit)
7 dbg RUNNING gb003
"#;

/// `squeue -j 13 -o '%i %j %T %R'` (52-dependency-never-satisfied.txt).
pub const DEPENDENCY_NEVER_SATISFIED: &str = r#"JOBID NAME STATE NODELIST(REASON)
13 after-big PENDING (DependencyNeverSatisfied)
"#;

/// `scancel 8_9; squeue -r -j 8 -o '%i %T %R'` (54-scancel-array-task.txt).
pub const ARRAY_TASK_CANCELLED: &str = r#"JOBID STATE NODELIST(REASON)
8_2 PENDING (JobArrayTaskLimit)
8_3 PENDING (JobArrayTaskLimit)
8_4 PENDING (JobArrayTaskLimit)
8_5 PENDING (JobArrayTaskLimit)
8_6 PENDING (JobArrayTaskLimit)
8_7 PENDING (JobArrayTaskLimit)
8_8 PENDING (JobArrayTaskLimit)
8_1 RUNNING gb001
8_0 RUNNING gb001
"#;

/// `squeue -j 14,15 -o '%i %j %T %R'` (57-dependency-afterok-waiting.txt).
pub const AFTEROK_WAITING: &str = r#"JOBID NAME STATE NODELIST(REASON)
14 ok PENDING (None)
15 after-ok PENDING (Dependency)
"#;
