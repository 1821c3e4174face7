//! The sacct outputs recorded from real Slurm 22.05.8
//! (../shared/slurm-reference/90-97, command line and exit status removed;
//! the JSON with its lists trimmed as the recording trimmed them), that the
//! golden tests in tests.rs must reproduce byte for byte. Test data only.

/// `sacct` (90-sacct-default.txt).
pub const DEFAULT: &str = r#"JobID           JobName  Partition    Account  AllocCPUS      State ExitCode 
------------ ---------- ---------- ---------- ---------- ---------- -------- 
1                  wrap      batch   research          1 CANCELLED+      0:0 
1.batch           batch              research          1  CANCELLED     0:15 
2                  wrap      batch   research          1 CANCELLED+      0:0 
2.batch           batch              research          1  CANCELLED     0:15 
3                  wrap      batch   research          1  COMPLETED      0:0 
3.batch           batch              research          1  COMPLETED      0:0 
5                big2x4      batch   research          2 CANCELLED+      0:0 
5.batch           batch              research          1  CANCELLED     0:15 
6               one-gpu      batch   research          1     FAILED     0:10 
6.batch           batch              research          1  CANCELLED     0:10 
7                   dbg      debug   research          1 CANCELLED+      0:0 
7.batch           batch              research          1  CANCELLED     0:15 
8_0                 arr      batch   research          1 CANCELLED+      0:0 
8_0.batch         batch              research          1  CANCELLED     0:15 
8_1                 arr      batch   research          1 CANCELLED+      0:0 
8_1.batch         batch              research          1  CANCELLED     0:15 
11           whole-clu+      batch   research         72 CANCELLED+      0:0 
14                   ok      batch   research          1  COMPLETED      0:0 
14.batch          batch              research          1  COMPLETED      0:0 
15             after-ok      batch   research          1  COMPLETED      0:0 
15.batch          batch              research          1  COMPLETED      0:0 
16                 wrap      batch   research          1     FAILED      1:0 
17                 wrap      batch   research          1     FAILED      1:0 
18                 wrap      batch   research        100 CANCELLED+      0:0 
19                 wrap      batch   research          1     FAILED      1:0 
20                 wrap      debug   research          1 CANCELLED+      0:0 
21                 wrap      batch   research          1  COMPLETED      0:0 
21.batch          batch              research          1  COMPLETED      0:0 
23              defname      batch   research          1  COMPLETED      0:0 
23.batch          batch              research          1  COMPLETED      0:0 
25              patname      batch   research          1  COMPLETED      0:0 
25.batch          batch              research          1  COMPLETED      0:0 
27             errsplit      batch   research          1  COMPLETED      0:0 
27.batch          batch              research          1  COMPLETED      0:0 
24_0             defarr      batch   research          1  COMPLETED      0:0 
24_0.batch        batch              research          1  COMPLETED      0:0 
24_1             defarr      batch   research          1  COMPLETED      0:0 
24_1.batch        batch              research          1  COMPLETED      0:0 
24_2             defarr      batch   research          1  COMPLETED      0:0 
24_2.batch        batch              research          1  COMPLETED      0:0 
26_3             patarr      batch   research          1  COMPLETED      0:0 
26_3.batch        batch              research          1  COMPLETED      0:0 
26_4             patarr      batch   research          1  COMPLETED      0:0 
26_4.batch        batch              research          1  COMPLETED      0:0 
31               envjob      batch   research          8  COMPLETED      0:0 
31.batch          batch              research          4  COMPLETED      0:0 
31.0               bash              research          8  COMPLETED      0:0 
31.1               bash              research          8  COMPLETED      0:0 
31.2               bash              research          4  COMPLETED      0:0 
"#;

/// `sacct -X -o JobID,JobName%20,Partition,Account,AllocCPUS,AllocTRES%40,State,ExitCode,Elapsed` (91-sacct-X-format.txt).
pub const X_FORMAT: &str = r#"JobID                     JobName  Partition    Account  AllocCPUS                                AllocTRES      State ExitCode    Elapsed 
------------ -------------------- ---------- ---------- ---------- ---------------------------------------- ---------- -------- ---------- 
1                            wrap      batch   research          1            billing=1,cpu=1,mem=4G,node=1 CANCELLED+      0:0   00:00:17 
2                            wrap      batch   research          1            billing=1,cpu=1,mem=4G,node=1 CANCELLED+      0:0   00:00:17 
3                            wrap      batch   research          1            billing=1,cpu=1,mem=4G,node=1  COMPLETED      0:0   00:00:00 
5                          big2x4      batch   research          2 billing=2,cpu=2,gres/gpu=8,mem=8G,node=2 CANCELLED+      0:0   00:00:05 
6                         one-gpu      batch   research          1 billing=1,cpu=1,gres/gpu=1,mem=4G,node=1     FAILED     0:10   00:00:10 
7                             dbg      debug   research          1 billing=1,cpu=1,gres/gpu=2,mem=4G,node=1 CANCELLED+      0:0   00:00:17 
8_0                           arr      batch   research          1            billing=1,cpu=1,mem=4G,node=1 CANCELLED+      0:0   00:00:17 
8_1                           arr      batch   research          1            billing=1,cpu=1,mem=4G,node=1 CANCELLED+      0:0   00:00:17 
11                  whole-cluster      batch   research         72                                          CANCELLED+      0:0   00:00:00 
14                             ok      batch   research          1            billing=1,cpu=1,mem=4G,node=1  COMPLETED      0:0   00:00:02 
15                       after-ok      batch   research          1            billing=1,cpu=1,mem=4G,node=1  COMPLETED      0:0   00:00:00 
16                           wrap      batch   research          1                                              FAILED      1:0   00:00:00 
17                           wrap      batch   research          1                                              FAILED      1:0   00:00:00 
18                           wrap      batch   research        100                                          CANCELLED+      0:0   00:00:00 
19                           wrap      batch   research          1                                              FAILED      1:0   00:00:00 
20                           wrap      debug   research          1                                          CANCELLED+      0:0   00:00:00 
21                           wrap      batch   research          1            billing=1,cpu=1,mem=4G,node=1  COMPLETED      0:0   00:00:00 
23                        defname      batch   research          1            billing=1,cpu=1,mem=4G,node=1  COMPLETED      0:0   00:00:01 
25                        patname      batch   research          1            billing=1,cpu=1,mem=4G,node=1  COMPLETED      0:0   00:00:01 
27                       errsplit      batch   research          1            billing=1,cpu=1,mem=4G,node=1  COMPLETED      0:0   00:00:01 
24_0                       defarr      batch   research          1            billing=1,cpu=1,mem=4G,node=1  COMPLETED      0:0   00:00:01 
24_1                       defarr      batch   research          1            billing=1,cpu=1,mem=4G,node=1  COMPLETED      0:0   00:00:01 
24_2                       defarr      batch   research          1            billing=1,cpu=1,mem=4G,node=1  COMPLETED      0:0   00:00:01 
26_3                       patarr      batch   research          1            billing=1,cpu=1,mem=4G,node=1  COMPLETED      0:0   00:00:01 
26_4                       patarr      batch   research          1            billing=1,cpu=1,mem=4G,node=1  COMPLETED      0:0   00:00:01 
31                         envjob      batch   research          8 billing=8,cpu=8,gres/gpu=8,mem=32G,node+  COMPLETED      0:0   00:00:01 
"#;

/// `sacct -j 31` (92-sacct-job-steps.txt).
pub const JOB_STEPS: &str = r#"JobID           JobName  Partition    Account  AllocCPUS      State ExitCode 
------------ ---------- ---------- ---------- ---------- ---------- -------- 
31               envjob      batch   research          8  COMPLETED      0:0 
31.batch          batch              research          4  COMPLETED      0:0 
31.0               bash              research          8  COMPLETED      0:0 
31.1               bash              research          8  COMPLETED      0:0 
31.2               bash              research          4  COMPLETED      0:0 
"#;

/// `sacct -j 31 -l -P` (93-sacct-long-one.txt).
pub const LONG_ONE: &str = r#"JobID|JobIDRaw|JobName|Partition|MaxVMSize|MaxVMSizeNode|MaxVMSizeTask|AveVMSize|MaxRSS|MaxRSSNode|MaxRSSTask|AveRSS|MaxPages|MaxPagesNode|MaxPagesTask|AvePages|MinCPU|MinCPUNode|MinCPUTask|AveCPU|NTasks|AllocCPUS|Elapsed|State|ExitCode|AveCPUFreq|ReqCPUFreqMin|ReqCPUFreqMax|ReqCPUFreqGov|ReqMem|ConsumedEnergy|MaxDiskRead|MaxDiskReadNode|MaxDiskReadTask|AveDiskRead|MaxDiskWrite|MaxDiskWriteNode|MaxDiskWriteTask|AveDiskWrite|ReqTRES|AllocTRES|TRESUsageInAve|TRESUsageInMax|TRESUsageInMaxNode|TRESUsageInMaxTask|TRESUsageInMin|TRESUsageInMinNode|TRESUsageInMinTask|TRESUsageInTot|TRESUsageOutMax|TRESUsageOutMaxNode|TRESUsageOutMaxTask|TRESUsageOutAve|TRESUsageOutTot
31|31|envjob|batch||||||||||||||||||8|00:00:01|COMPLETED|0:0||Unknown|Unknown|Unknown|32G|0|||||||||billing=8,cpu=8,gres/gpu=8,mem=32G,node=2|billing=8,cpu=8,gres/gpu=8,mem=32G,node=2|||||||||||||
31.batch|31.batch|batch||||||||||||||||||1|4|00:00:01|COMPLETED|0:0|0|0|0|0||0||||||||||cpu=4,gres/gpu=4,mem=16G,node=1|energy=0|||||||energy=0||||energy=0|energy=0
31.0|31.0|bash||||||||||||||||||8|8|00:00:01|COMPLETED|0:0|0|Unknown|Unknown|Unknown||0||||||||||cpu=8,gres/gpu=8,mem=32G,node=2|energy=0|||||||energy=0||||energy=0|energy=0
31.1|31.1|bash||||||||||||||||||8|8|00:00:00|COMPLETED|0:0|0|Unknown|Unknown|Unknown||0||||||||||cpu=8,gres/gpu=8,mem=32G,node=2|energy=0|||||||energy=0||||energy=0|energy=0
31.2|31.2|bash||||||||||||||||||1|4|00:00:00|COMPLETED|0:0|0|Unknown|Unknown|Unknown||0||||||||||cpu=4,gres/gpu=4,mem=16G,node=1|energy=0|||||||energy=0||||energy=0|energy=0
"#;

/// `sacct -P -X -n -o JobID,State,ExitCode,NodeList -S now-1hour` (94-sacct-parsable.txt).
pub const PARSABLE: &str = r#"1|CANCELLED by 0|0:0|gb001
2|CANCELLED by 0|0:0|gb001
3|COMPLETED|0:0|gb001
5|CANCELLED by 2001|0:0|gb[001-002]
6|FAILED|0:10|gb003
7|CANCELLED by 0|0:0|gb003
8_0|CANCELLED by 0|0:0|gb001
8_1|CANCELLED by 0|0:0|gb001
11|CANCELLED by 2001|0:0|None assigned
14|COMPLETED|0:0|gb001
15|COMPLETED|0:0|gb001
16|FAILED|1:0|None assigned
17|FAILED|1:0|None assigned
18|CANCELLED by 0|0:0|None assigned
19|FAILED|1:0|None assigned
20|CANCELLED by 0|0:0|None assigned
21|COMPLETED|0:0|gb001
23|COMPLETED|0:0|gb001
25|COMPLETED|0:0|gb001
27|COMPLETED|0:0|gb001
24_0|COMPLETED|0:0|gb001
24_1|COMPLETED|0:0|gb001
24_2|COMPLETED|0:0|gb001
26_3|COMPLETED|0:0|gb001
26_4|COMPLETED|0:0|gb001
31|COMPLETED|0:0|gb[001-002]
32|COMPLETED|0:0|gb[001-002]
33|COMPLETED|0:0|gb001
34|COMPLETED|0:0|gb001
"#;

/// `sacct -j 31 --json` (95-sacct-json.txt).
pub const JSON: &str = r#"{
  "meta": {
    "plugin": {
      "type": "openapi/dbv0.0.38",
      "name": "Slurm OpenAPI DB v0.0.38"
    },
    "Slurm": {
      "version": {
        "major": 22,
        "micro": 8,
        "minor": 5
      },
      "release": "22.05.8"
    }
  },
  "errors": [],
  "jobs": [
    {
      "account": "research",
      "comment": {
        "administrator": null,
        "job": null,
        "system": null
      },
      "allocation_nodes": 2,
      "array": {
        "job_id": 0,
        "limits": {
          "max": {
            "running": {
              "tasks": 0
            }
          }
        },
        "task": null,
        "task_id": null
      },
      "association": {
        "account": "research",
        "cluster": "anchor",
        "partition": null,
        "user": "anchor"
      },
      "cluster": "anchor",
      "constraints": "",
      "container": null,
      "derived_exit_code": {
        "status": "SUCCESS",
        "return_code": 0
      },
      "time": {
        "elapsed": 1,
        "eligible": 1795993519,
        "end": 1795993521,
        "start": 1795993520,
        "submission": 1795993519,
        "suspended": 0,
        "system": {
          "seconds": 0,
          "microseconds": 0
        },
        "limit": 5,
        "total": {
          "seconds": 0,
          "microseconds": 0
        },
        "user": {
          "seconds": 0,
          "microseconds": 0
        }
      },
      "exit_code": {
        "status": "SUCCESS",
        "return_code": 0
      },
      "flags": [
        "CLEAR_SCHEDULING",
        "STARTED_ON_SCHEDULE"
      ],
      "group": "anchor",
      "het": {
        "job_id": 0,
        "job_offset": null
      },
      "job_id": 31,
      "name": "envjob",
      "mcs": {
        "label": ""
      },
      "nodes": "gb[001-002]",
      "partition": "batch",
      "priority": 4294901735,
      "qos": "normal",
      "required": {
        "CPUs": 8,
        "memory": 4096
      },
      "kill_request_user": null,
      "reservation": {
        "id": 0,
        "name": 0
      },
      "state": {
        "current": "COMPLETED",
        "reason": "None"
      },
      "steps": [
        {
          "nodes": {
            "list": [
              "gb001"
            ],
            "count": 1,
            "range": "gb001"
          },
          "tres": {
            "requested": {
              "max": [],
              "min": [],
              "average": [
                {
                  "type": "energy",
                  "name": null,
                  "id": 3,
                  "count": 0
                }
              ],
              "total": [
                {
                  "type": "energy",
                  "name": null,
                  "id": 3,
                  "count": 0
                }
              ]
            },
            "consumed": {
              "max": [],
              "min": [],
              "average": [
                {
                  "type": "energy",
                  "name": null,
                  "id": 3,
                  "count": 0
                }
              ],
              "total": [
                {
                  "type": "energy",
                  "name": null,
                  "id": 3,
                  "count": 0
                }
              ]
            },
            "allocated": [
              {
                "type": "cpu",
                "name": null,
                "id": 1,
                "count": 4
              },
              {
                "type": "mem",
                "name": null,
                "id": 2,
                "count": 16384
              },
              "... [trimmed: 4 items total, first 2 shown]"
            ]
          },
          "time": {
            "elapsed": 1,
            "end": 1795993521,
            "start": 1795993520,
            "suspended": 0,
            "system": {
              "seconds": 0,
              "microseconds": 41763
            },
            "total": {
              "seconds": 0,
              "microseconds": 47368
            },
            "user": {
              "seconds": 0,
              "microseconds": 5605
            }
          },
          "exit_code": {
            "status": "SUCCESS",
            "return_code": 0
          },
          "tasks": {
            "count": 1
          },
          "pid": null,
          "CPU": {
            "requested_frequency": {
              "min": 0,
              "max": 0
            },
            "governor": []
          },
          "kill_request_user": null,
          "state": "COMPLETED",
          "statistics": {
            "CPU": {
              "actual_frequency": 0
            },
            "energy": {
              "consumed": 0
            }
          },
          "step": {
            "job_id": 31,
            "het": {
              "component": null
            },
            "id": "batch",
            "name": "batch"
          },
          "task": {
            "distribution": "Unknown"
          }
        },
        {
          "nodes": {
            "list": [
              "gb001",
              "gb002"
            ],
            "count": 2,
            "range": "gb[001-002]"
          },
          "tres": {
            "requested": {
              "max": [],
              "min": [],
              "average": [
                {
                  "type": "energy",
                  "name": null,
                  "id": 3,
                  "count": 0
                }
              ],
              "total": [
                {
                  "type": "energy",
                  "name": null,
                  "id": 3,
                  "count": 0
                }
              ]
            },
            "consumed": {
              "max": [],
              "min": [],
              "average": [
                {
                  "type": "energy",
                  "name": null,
                  "id": 3,
                  "count": 0
                }
              ],
              "total": [
                {
                  "type": "energy",
                  "name": null,
                  "id": 3,
                  "count": 0
                }
              ]
            },
            "allocated": [
              {
                "type": "cpu",
                "name": null,
                "id": 1,
                "count": 8
              },
              {
                "type": "mem",
                "name": null,
                "id": 2,
                "count": 32768
              },
              "... [trimmed: 4 items total, first 2 shown]"
            ]
          },
          "time": {
            "elapsed": 1,
            "end": 1795993521,
            "start": 1795993520,
            "suspended": 0,
            "system": {
              "seconds": 0,
              "microseconds": 9499
            },
            "total": {
              "seconds": 0,
              "microseconds": 20889
            },
            "user": {
              "seconds": 0,
              "microseconds": 11390
            }
          },
          "exit_code": {
            "status": "SUCCESS",
            "return_code": 0
          },
          "tasks": {
            "count": 8
          },
          "pid": null,
          "CPU": {
            "requested_frequency": {
              "min": null,
              "max": null
            },
            "governor": [
              "Conservative",
              "Performance",
              "... [trimmed: 5 items total, first 2 shown]"
            ]
          },
          "kill_request_user": null,
          "state": "COMPLETED",
          "statistics": {
            "CPU": {
              "actual_frequency": 0
            },
            "energy": {
              "consumed": 0
            }
          },
          "step": {
            "job_id": 31,
            "het": {
              "component": null
            },
            "id": 0,
            "name": "bash"
          },
          "task": {
            "distribution": "Block"
          }
        },
        "... [trimmed: 4 items total, first 2 shown]"
      ],
      "tres": {
        "allocated": [
          {
            "type": "cpu",
            "name": null,
            "id": 1,
            "count": 8
          },
          {
            "type": "mem",
            "name": null,
            "id": 2,
            "count": 32768
          },
          "... [trimmed: 5 items total, first 2 shown]"
        ],
        "requested": [
          {
            "type": "cpu",
            "name": null,
            "id": 1,
            "count": 8
          },
          {
            "type": "mem",
            "name": null,
            "id": 2,
            "count": 32768
          },
          "... [trimmed: 5 items total, first 2 shown]"
        ]
      },
      "user": "anchor",
      "wckey": {
        "wckey": "",
        "flags": []
      },
      "working_directory": "/var/tmp/slurm-anchor"
    }
  ]
}
"#;

/// `sacct -j 35,36 -o JobID,JobName,State,ExitCode,DerivedExitCode` (96-sacct-failed-cancelled.txt).
pub const FAILED_CANCELLED: &str = r#"JobID           JobName      State ExitCode DerivedExitCode 
------------ ---------- ---------- -------- --------------- 
35                fails     FAILED      3:0             0:0 
35.batch          batch     FAILED      3:0                 
36            cancelled CANCELLED+      0:0             0:0 
36.batch          batch  CANCELLED     0:15                 
"#;

/// `sacct -j 24 -X -o JobID,JobIDRaw,JobName,State` (97-sacct-array.txt).
pub const ARRAY: &str = r#"JobID        JobIDRaw        JobName      State 
------------ ------------ ---------- ---------- 
24_0         28               defarr  COMPLETED 
24_1         29               defarr  COMPLETED 
24_2         24               defarr  COMPLETED 
"#;
