//! Tests of hostlist expansion and compression against Slurm's recorded
//! outputs, and the round-trip property.

use proptest::prelude::*;

use super::*;

fn names(list: &str) -> Vec<String> {
    list.split_whitespace().map(str::to_string).collect()
}

fn problem(expr: &str) -> HostlistProblem {
    match expand(expr) {
        Err(HostlistError::Invalid { problem, .. }) => problem,
        other => panic!("expected an invalid-hostlist error for {expr:?}, got {other:?}"),
    }
}

#[test]
fn expand_matches_scontrol_show_hostnames() {
    // slurm-reference/36-scontrol-show-hostnames.txt
    assert_eq!(
        expand("gb[001-003,010]").unwrap(),
        names("gb001 gb002 gb003 gb010")
    );
}

#[test]
fn compress_matches_scontrol_show_hostlist() {
    // slurm-reference/37-scontrol-show-hostlist.txt
    assert_eq!(
        compress(&names("gb001 gb002 gb003 gb010")),
        "gb[001-003,010]"
    );
    assert_eq!(compress(&names("n1 n2 n3 n5")), "n[1-3,5]");
}

#[test]
fn zero_padding_is_the_width_of_the_lower_bound() {
    assert_eq!(expand("n[08-10]").unwrap(), names("n08 n09 n10"));
    assert_eq!(expand("n[8-10]").unwrap(), names("n8 n9 n10"));
    assert_eq!(compress(&names("n8 n9 n10")), "n[8-10]");
    assert_eq!(compress(&names("n08 n09 n10")), "n[08-10]");
    assert_eq!(compress(&names("n9 n10")), "n[9-10]");
}

#[test]
fn different_padding_widths_stay_separate_ranges_in_one_bracket() {
    assert_eq!(compress(&names("n1 n01")), "n[1,01]");
    assert_eq!(compress(&names("n1 n2 n001 n002")), "n[1-2,001-002]");
    assert_eq!(expand("n[1,01]").unwrap(), names("n1 n01"));
}

#[test]
fn several_bracket_groups_expand_in_slurm_order() {
    assert_eq!(
        expand("r[1-2]n[01-03]").unwrap(),
        names("r1n01 r1n02 r1n03 r2n01 r2n02 r2n03")
    );
    // Slurm's _push_range_list: the middle group is the outer loop.
    assert_eq!(
        expand("a[1-2]b[3-4]c[5-6]").unwrap(),
        names("a1b3c5 a1b3c6 a2b3c5 a2b3c6 a1b4c5 a1b4c6 a2b4c5 a2b4c6")
    );
}

#[test]
fn top_level_lists_and_suffixes() {
    assert_eq!(expand("a1,b[2-3]").unwrap(), names("a1 b2 b3"));
    assert_eq!(expand("a1 b2\tc3\nd4").unwrap(), names("a1 b2 c3 d4"));
    assert_eq!(expand("n[1-2]-ib").unwrap(), names("n1-ib n2-ib"));
    assert_eq!(expand("login").unwrap(), names("login"));
    assert_eq!(expand("a,,b").unwrap(), names("a b"));
    assert_eq!(expand("[1-3]").unwrap(), names("1 2 3"));
    assert_eq!(expand("n[1, 3]").unwrap(), names("n1 n3"));
    assert_eq!(compress(&names("n1-ib n2-ib")), "n1-ib,n2-ib");
    assert_eq!(compress(&names("1 2 3")), "[1-3]");
}

#[test]
fn compress_keeps_order_and_duplicates_like_scontrol() {
    // scontrol(1): "tux2,tux1,tux2 = tux[2,1-2]" and sorted "tux[1-2,2]".
    let tux = names("tux2 tux1 tux2");
    assert_eq!(compress(&tux), "tux[2,1-2]");
    assert_eq!(compress_sorted(&tux), "tux[1-2,2]");
    assert_eq!(compress_unique(&tux), "tux[1-2]");
    assert_eq!(compress(&names("a1 b1 a2")), "a1,b1,a2");
    assert_eq!(compress(&names("login login")), "login,login");
}

#[test]
fn compress_sorted_orders_like_hostlist_sort() {
    assert_eq!(compress_sorted(&names("n10 n9 n2 n1")), "n[1-2,9-10]");
    assert_eq!(compress_sorted(&names("r10n1 r2n1")), "r2n1,r10n1");
    assert_eq!(compress_sorted(&names("n1 n")), "n,n1");
    assert_eq!(compress_sorted(&names("n1 n2 n3 n2 n3")), "n[1-2,2-3,3]");
    assert_eq!(compress_sorted(&names("n01 n5 n1")), "n[1,5,01]");
    assert_eq!(compress_unique(&names("n3 n1 n2 n1 n2")), "n[1-3]");
}

#[test]
fn malformed_expressions_are_rejected_with_the_problem() {
    assert_eq!(
        problem("n[3-1]"),
        HostlistProblem::Descending {
            lo: "3".into(),
            hi: "1".into()
        }
    );
    assert_eq!(problem("n[1-"), HostlistProblem::MissingCloseBracket);
    assert_eq!(problem("n[a-b]"), HostlistProblem::NotANumber("a-b".into()));
    assert_eq!(problem("n[]"), HostlistProblem::EmptyRange);
    assert_eq!(problem("n[1,,2]"), HostlistProblem::EmptyRange);
    assert_eq!(
        problem("n[1-]"),
        HostlistProblem::MissingUpperBound("1-".into())
    );
    assert_eq!(
        problem("n[1--2]"),
        HostlistProblem::NotANumber("1--2".into())
    );
    assert_eq!(problem("n[1]]"), HostlistProblem::UnexpectedBracket);
    assert_eq!(problem("n]1"), HostlistProblem::UnexpectedBracket);
    assert_eq!(problem("a[1]b]c[2]"), HostlistProblem::UnexpectedBracket);
    assert_eq!(
        problem("n[0-65536]"),
        HostlistProblem::RangeTooLarge("0-65536".into())
    );
    assert!(matches!(
        problem("n[99999999999999999999999]"),
        HostlistProblem::NumberTooLarge(_)
    ));
    assert_eq!(expand(""), Err(HostlistError::Empty));
    assert_eq!(expand(" , "), Err(HostlistError::Empty));
}

#[test]
fn error_messages_name_the_expression_and_problem() {
    let err = expand("n[3-1]").unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid hostlist \"n[3-1]\": range \"3-1\" is descending"
    );
    assert_eq!(
        expand("n[1-").unwrap_err().to_string(),
        "invalid hostlist \"n[1-\": missing ']'"
    );
}

#[test]
fn huge_expansions_are_refused() {
    assert_eq!(expand("n[0-65535]").unwrap().len(), 65_536);
    assert!(matches!(
        expand("a[0-65535]b[0-65535]"),
        Err(HostlistError::TooManyHosts { .. })
    ));
}

#[test]
fn natural_order_matches_strnatcmp() {
    assert_eq!(strnatcmp(b"r2n", b"r10n"), Ordering::Less);
    assert_eq!(strnatcmp(b"a01", b"a1"), Ordering::Less);
    assert_eq!(strnatcmp(b"abc", b"abc"), Ordering::Equal);
    assert_eq!(strnatcmp(b"ab", b"abc"), Ordering::Less);
}

fn name_strategy() -> impl Strategy<Value = String> {
    let prefix = prop::sample::select(vec!["n", "gb", "r1n", "r10n", "a-", "", "x.y"]);
    prop_oneof![
        4 => (prefix, 0u64..300, 0usize..3).prop_map(|(p, n, pad)| {
            let w = digits(n) + pad;
            format!("{p}{n:0w$}")
        }),
        1 => prop::sample::select(vec!["login", "head-a", "gpu"]).prop_map(str::to_string),
    ]
}

proptest! {
    #[test]
    fn expand_of_compress_gives_the_names_back(x in prop::collection::vec(name_strategy(), 1..40)) {
        prop_assert_eq!(expand(&compress(&x)).unwrap(), x);
    }

    #[test]
    fn compress_sorted_is_a_sorted_permutation(x in prop::collection::vec(name_strategy(), 1..40)) {
        let sorted = compress_sorted(&x);
        let back = expand(&sorted).unwrap();
        let mut a = back.clone();
        let mut b = x.clone();
        a.sort();
        b.sort();
        prop_assert_eq!(a, b);
        prop_assert_eq!(compress_sorted(&back), sorted);
    }

    #[test]
    fn unique_is_the_names_compress_unique_writes(x in prop::collection::vec(name_strategy(), 1..40)) {
        prop_assert_eq!(unique(&x), expand(&compress_unique(&x)).unwrap());
    }

    #[test]
    fn expand_of_compress_unique_is_sorted_unique(x in prop::collection::vec(name_strategy(), 1..40)) {
        let unique = expand(&compress_unique(&x)).unwrap();
        let mut from_sorted = expand(&compress_sorted(&x)).unwrap();
        from_sorted.dedup();
        prop_assert_eq!(&unique, &from_sorted);
        let mut set = x.clone();
        set.sort();
        set.dedup();
        let mut got = unique.clone();
        got.sort();
        prop_assert_eq!(got.len(), unique.len());
        prop_assert_eq!(got, set);
    }

    #[test]
    fn compress_sorted_ignores_input_order_of_unique_names(
        x in prop::collection::btree_set(name_strategy(), 1..40),
        seed in any::<u64>(),
    ) {
        let names: Vec<String> = x.into_iter().collect();
        let mut shuffled = names.clone();
        // A cheap deterministic shuffle.
        let len = shuffled.len();
        for i in 0..len {
            let j = (seed.wrapping_mul(i as u64 + 1) % len as u64) as usize;
            shuffled.swap(i, j);
        }
        prop_assert_eq!(compress_sorted(&names), compress_sorted(&shuffled));
    }

    #[test]
    fn unpadded_numbers_of_one_prefix_sort_numerically(x in prop::collection::btree_set(0u64..10_000, 1..50)) {
        let names: Vec<String> = x.iter().rev().map(|n| format!("gb{n}")).collect();
        let want: Vec<String> = x.iter().map(|n| format!("gb{n}")).collect();
        prop_assert_eq!(expand(&compress_sorted(&names)).unwrap(), want);
    }

    #[test]
    fn expand_never_panics(s in "\\PC{0,40}") {
        let _ = expand(&s);
    }

    #[test]
    fn expand_never_panics_on_bracket_soup(s in "[a-c0-9\\[\\],\\- ]{0,30}") {
        if let Ok(v) = expand(&s) {
            prop_assert!(!v.is_empty());
        }
    }
}
