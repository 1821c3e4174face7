//! `src/absent.rs` exports every function `src/bindings.rs` declares that
//! no other module of the library exports, each answering "not
//! supported"; it is made here from those two and compared with the
//! committed file (`SPUR_BLESS=1` rewrites it).

use std::path::PathBuf;

/// Functions of libslurm.so.38 that `slurm.h` and `slurmdb.h` do not
/// declare and programs built on the library call (the Perl module,
/// pyslurm), besides the `slurm_bit_*` family.
const BEYOND_SLURM_H: &[&str] = &[
    "slurm_accounting_enforce_string",
    "slurm_addto_char_list_with_case",
    "slurm_addto_step_list",
    "slurm_bitfmt2int",
    "slurm_conf_destroy",
    "slurm_conf_get_address",
    "slurm_conf_get_aliased_nodename",
    "slurm_conf_get_hostname",
    "slurm_conf_get_nodeaddr",
    "slurm_conf_get_nodename",
    "slurm_conf_get_port",
    "slurm_conf_init",
    "slurm_conf_lock",
    "slurm_conf_reinit",
    "slurm_conf_unlock",
    "slurm_env_array_create",
    "slurm_env_array_free",
    "slurm_env_array_merge",
    "slurm_env_array_overwrite",
    "slurm_free_job_desc_msg",
    "slurm_free_job_info",
    "slurm_free_job_step_info_members",
    "slurm_free_node_info_members",
    "slurm_free_partition_info_members",
    "slurm_free_return_code_msg",
    "slurm_free_stats_response_msg",
    "slurm_free_update_node_msg",
    "slurm_free_update_step_msg",
    "slurm_hostlist_deranged_string_malloc",
    "slurm_job_reason_string",
    "slurm_job_share_string",
    "slurm_job_state_num",
    "slurm_job_state_string",
    "slurm_job_state_string_compact",
    "slurm_make_time_str",
    "slurm_mins2time_str",
    "slurm_msg_t_init",
    "slurm_node_state_string",
    "slurm_node_state_string_compact",
    "slurm_node_state_string_complete",
    "slurm_parse_time",
    "slurm_preempt_mode_num",
    "slurm_preempt_mode_string",
    "slurm_private_data_string",
    "slurm_reservation_flags_string",
    "slurm_secs2time_str",
    "slurm_send_recv_controller_msg",
    "slurm_sprint_cpu_bind_type",
    "slurm_step_layout_type_name",
    "slurm_time_str2mins",
    "slurm_time_str2secs",
    "slurm_xcalloc",
    "slurm_xfree",
    "slurm_xfree_ptr",
    "slurm_xstrcmp",
    "slurmdb_create_job_rec",
    "slurmdb_find_tres_count_in_string",
    "slurmdb_job_cond_def_start_end",
    "slurmdb_report_set_start_end_time",
];

/// One function `slurm.h` declares: its name, its parameters' types and
/// its return type.
struct Declared {
    name: String,
    params: Vec<String>,
    ret: Option<String>,
}

fn src(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("src")
        .join(file)
}

/// The index just past the parenthesis that closes the one at `text[0]`.
fn closing(text: &str) -> usize {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced parentheses in {text}");
}

/// `text` split at its commas outside brackets (`->` is no bracket).
fn split_top(text: &str) -> Vec<String> {
    let (mut out, mut depth, mut start, mut prev) = (Vec::new(), 0i32, 0, ' ');
    for (i, c) in text.char_indices() {
        match c {
            '(' | '<' | '[' => depth += 1,
            '>' if prev == '-' => {}
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(text[start..i].to_string());
                start = i + 1;
            }
            _ => {}
        }
        prev = c;
    }
    out.push(text[start..].to_string());
    out.into_iter()
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .collect()
}

/// Every `pub fn` of the bindings' extern blocks.
fn declared(bindings: &str) -> Vec<Declared> {
    let mut out = Vec::new();
    let mut rest = bindings;
    while let Some(at) = rest.find("pub fn ") {
        rest = &rest[at + "pub fn ".len()..];
        let open = rest.find('(').expect("a parameter list");
        let name = rest[..open].trim().to_string();
        let close = open + closing(&rest[open..]);
        let params = split_top(&rest[open + 1..close - 1])
            .into_iter()
            .map(|p| {
                let (_, ty) = p.split_once(": ").expect("name: type");
                ty.to_string()
            })
            .collect();
        let after = &rest[close..];
        let end = after.find(';').expect("a declaration ends");
        let ret = after[..end]
            .trim()
            .strip_prefix("->")
            .map(|r| r.split_whitespace().collect::<Vec<_>>().join(" "));
        out.push(Declared { name, params, ret });
        rest = &after[end..];
    }
    out
}

/// The functions the library's other modules export.
fn exported_elsewhere() -> Vec<String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(src("")).expect("src") {
        let path = entry.expect("entry").path();
        let file = path.file_name().and_then(|f| f.to_str()).unwrap_or("");
        if matches!(file, "absent.rs" | "bindings.rs") || !file.ends_with(".rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("readable");
        for piece in text.split("#[no_mangle]").skip(1) {
            let Some((_, rest)) = piece.split_once("extern \"C\" fn ") else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            names.push(name);
        }
    }
    names
}

fn render(declared: &[Declared], elsewhere: &[String]) -> String {
    let mut out = String::from(
        "//! Every function `slurm.h` declares that spur does not serve yet: each\n\
         //! sets errno `ESLURM_NOT_SUPPORTED` and returns its type's failure value.\n\
         //! Made by `tests/absent.rs` from `bindings.rs` and the functions the other\n\
         //! modules export; `SPUR_BLESS=1 cargo test -p spur-ffi --test absent`\n\
         //! remakes it.\n\n\
         use crate::bindings::*;\n\
         use crate::call::unsupported;\n",
    );
    for d in declared {
        if elsewhere.contains(&d.name) {
            continue;
        }
        let params: Vec<String> = d.params.iter().map(|t| format!("_: {t}")).collect();
        let ret = d
            .ret
            .as_ref()
            .map(|r| format!(" -> {r}"))
            .unwrap_or_default();
        out.push_str(&format!(
            "\n#[no_mangle]\npub extern \"C\" fn {}({}){ret} {{\n    unsupported()\n}}\n",
            d.name,
            params.join(", ")
        ));
    }
    out
}

#[test]
fn every_declared_function_not_served_elsewhere_answers_not_supported() {
    let bindings = std::fs::read_to_string(src("bindings.rs")).expect("the bindings");
    let declared = declared(&bindings);
    assert!(declared.len() > 150, "{} functions", declared.len());
    let elsewhere = exported_elsewhere();
    for name in &elsewhere {
        assert!(
            declared.iter().any(|d| &d.name == name)
                || BEYOND_SLURM_H.contains(&name.as_str())
                || name.starts_with("slurm_bit_"),
            "{name} is exported but slurm.h does not declare it"
        );
    }
    let made = render(&declared, &elsewhere);
    if std::env::var_os("SPUR_BLESS").is_some() {
        std::fs::write(src("absent.rs"), &made).expect("absent.rs is written");
    }
    let have = std::fs::read_to_string(src("absent.rs")).expect("the committed absent.rs");
    assert!(
        have == made,
        "src/absent.rs is out of date; remake it with SPUR_BLESS=1"
    );
}

/// The library as built beside this test.
fn built_library() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    // target/<profile>/deps/<test>: `cargo test` leaves the library beside
    // it, `cargo build` in target/<profile>; the newer one is this tree's.
    let deps = exe.parent().expect("target/<profile>/deps");
    let profile = deps.parent().expect("target/<profile>");
    [deps.join("libslurm.so"), profile.join("libslurm.so")]
        .into_iter()
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .max()
        .map(|(_, p)| p)
        .expect("libslurm.so is built")
}

#[test]
fn the_library_loads_with_rtld_now_and_exports_every_declared_function() {
    let bindings = std::fs::read_to_string(src("bindings.rs")).expect("the bindings");
    let path = built_library();
    let c_path = std::ffi::CString::new(path.to_string_lossy().as_bytes()).expect("a path");
    // SAFETY: dlopen and dlsym only look the symbols up; nothing is called.
    unsafe {
        let lib = libc::dlopen(c_path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
        assert!(
            !lib.is_null(),
            "{} does not load with RTLD_NOW",
            path.display()
        );
        for d in declared(&bindings) {
            let name = std::ffi::CString::new(d.name.as_str()).expect("a name");
            assert!(
                !libc::dlsym(lib, name.as_ptr()).is_null(),
                "{} is not exported",
                d.name
            );
        }
    }
}
