//! Tests of the grammar, every rule, suppressions and the checked-in schemas.

use idemcheck_spec::attr::{KeyAttr, SideEffectAttr, parse_allow_comment};
use idemcheck_spec::check::{CheckInput, apply_allows, check_contract, contract_of};
use idemcheck_spec::config::Config;
use idemcheck_spec::hints::ToolHints;
use idemcheck_spec::model::{KeyDerivation, RuleCode, Severity, ToolKind};

fn parse(src: &str) -> Result<SideEffectAttr, String> {
    syn::parse_str::<SideEffectAttr>(src).map_err(|e| {
        e.into_iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join(" | ")
    })
}

fn err(src: &str) -> String {
    parse(src).expect_err(src)
}

const CHARGE: &str = "async fn create_charge(billing: &Billing, args: ChargeArgs) -> Result<Charge, BillingError> { todo!() }";

fn verdict_with(
    attr: &str,
    func: &str,
    hints: Option<&str>,
    config: &Config,
) -> Vec<(RuleCode, Severity, Option<String>)> {
    let attr: SideEffectAttr = syn::parse_str(attr).unwrap();
    let func: syn::ItemFn = syn::parse_str(func).unwrap();
    let hints = hints.map(|h| ToolHints::from_tokens(h.parse().unwrap()));
    let mut verdict = check_contract(CheckInput {
        attr: &attr,
        sig: &func.sig,
        hints: hints.as_ref(),
        config,
    });
    apply_allows(&mut verdict.violations, &attr.allows);
    verdict
        .violations
        .into_iter()
        .map(|v| (v.code, v.severity, v.suppressed))
        .collect()
}

fn codes(attr: &str) -> Vec<&'static str> {
    codes_of(attr, CHARGE)
}

fn codes_of(attr: &str, func: &str) -> Vec<&'static str> {
    verdict_with(attr, func, None, &Config::default())
        .into_iter()
        .filter(|(_, _, s)| s.is_none())
        .map(|(c, _, _)| c.as_str())
        .collect()
}

const COMPLETE: &str =
    "key = [customer, order_id], verify = find_charge, max_retries = 1, settle_ms = 30_000";

// ---------------------------------------------------------------- grammar

#[test]
fn parses_every_key() {
    let a = parse(
        r#"kind = "write", key = [customer, args.order.id], verify = billing::find_charge, max_retries = 1,
           timeout_ms = 5_000, settle_ms = 90_000, ttl_hours = 48, name = "charge", server_dedup = true,
           allow(IDEM009, missing_verify, reason = "legacy API")"#,
    )
    .unwrap();
    assert_eq!(a.kind(), ToolKind::Write);
    let Some(KeyAttr::Fields { fields, .. }) = &a.key else {
        panic!()
    };
    assert_eq!(
        fields.iter().map(|f| f.text.as_str()).collect::<Vec<_>>(),
        ["customer", "args.order.id"]
    );
    assert_eq!(a.max_retries.unwrap().value, 1);
    assert_eq!(a.timeout_ms.unwrap().value, 5000);
    assert_eq!(a.settle_ms.unwrap().value, 90_000);
    assert_eq!(a.ttl_hours.unwrap().value, 48);
    assert_eq!(a.name.unwrap().value(), "charge");
    assert!(a.server_dedup.unwrap().value);
    assert_eq!(a.allows[0].rules.len(), 2);
    assert_eq!(a.allows[0].reason.value(), "legacy API");
}

#[test]
fn empty_and_trailing_comma_and_bare_flag() {
    assert!(parse("").unwrap().key.is_none());
    assert!(parse("max_retries = 0,").is_ok());
    assert!(
        parse("server_dedup, max_retries = 1")
            .unwrap()
            .server_dedup
            .unwrap()
            .value
    );
    assert_eq!(parse(r#"kind = "read""#).unwrap().kind(), ToolKind::Read);
    assert!(matches!(
        parse("key_fn = charge_key").unwrap().key,
        Some(KeyAttr::Function(_))
    ));
}

#[test]
fn wrong_value_types_name_the_key_and_the_fix() {
    assert_eq!(
        err(r#"max_retries = "1""#),
        "`max_retries` expects an integer, found string"
    );
    assert_eq!(
        err("max_retries = -1"),
        "`max_retries` expects an integer, found negative number"
    );
    assert_eq!(
        err("max_retries = 1.5"),
        "`max_retries` expects an integer, found float"
    );
    assert_eq!(
        err("timeout_ms = true"),
        "`timeout_ms` expects an integer number of milliseconds, found boolean"
    );
    assert_eq!(
        err("settle_ms = soon"),
        "`settle_ms` expects an integer number of milliseconds, found path `soon`"
    );
    assert_eq!(err("ttl_hours = 0"), "`ttl_hours` must be at least 1");
    assert_eq!(err("timeout_ms = 0"), "`timeout_ms` must be greater than 0");
    assert_eq!(
        err("max_retries = 99999999999"),
        "`max_retries` expects an integer: number too large to fit in target type"
    );
    assert_eq!(
        err("server_dedup = 1"),
        "`server_dedup` expects a boolean, found integer"
    );
    assert_eq!(
        err("name = charge"),
        "`name` expects a string, found path `charge`"
    );
    assert_eq!(err(r#"name = """#), "`name` must not be empty");
    assert_eq!(
        err(r#"kind = "delete""#),
        "`kind` expects \"write\" or \"read\", found \"delete\""
    );
    assert_eq!(
        err("kind = write"),
        "`kind` expects a string: write `kind = \"write\"`"
    );
    assert_eq!(
        err(r#"verify = "find_charge""#),
        "`verify` expects a function path, found string; write `verify = find_charge` without quotes"
    );
    assert_eq!(
        err("verify = [a]"),
        "`verify` expects a function path, found list"
    );
    assert_eq!(
        err("key = customer"),
        "`key` expects a list of fields like `[customer, order_id]`, found path `customer`"
    );
    assert_eq!(
        err("key = []"),
        "`key` needs at least one field naming the operation"
    );
    assert_eq!(
        err(r#"key = ["customer"]"#),
        "`key` entries are parameter names or field paths like `args.order.id`, found string"
    );
    assert_eq!(err("key = [a, a]"), "key field `a` is listed twice");
    assert_eq!(
        err("max_retries"),
        "`max_retries` needs a value: `max_retries = ...`"
    );
}

#[test]
fn unknown_keys_suggest_the_nearest() {
    assert_eq!(
        err("verfy = find_charge"),
        "unknown key `verfy`; did you mean `verify`?"
    );
    assert_eq!(
        err("max_retry = 1"),
        "unknown key `max_retry`; did you mean `max_retries`?"
    );
    assert_eq!(err("keys = [a]"), "unknown key `keys`; did you mean `key`?");
    assert!(err("zzz = 1").starts_with("unknown key `zzz`; expected one of kind, key, key_fn"));
}

#[test]
fn conflicts_and_duplicates() {
    assert_eq!(
        err("key = [a], key_fn = k"),
        "`key` and `key_fn` are mutually exclusive; keep one | `key` given here"
    );
    assert_eq!(
        err("max_retries = 1, max_retries = 2"),
        "`max_retries` is given twice"
    );
}

#[test]
fn allow_requires_a_reason_and_known_rules() {
    assert_eq!(
        err("allow(missing_verify)"),
        "`allow` requires `reason = \"...\"` saying why the rule does not apply here"
    );
    assert_eq!(
        err(r#"allow(missing_verfy, reason = "x")"#),
        "unknown rule `missing_verfy`; did you mean `missing_verify`?"
    );
    assert_eq!(
        err(r#"allow(reason = "x")"#),
        "`allow` needs at least one rule, e.g. `allow(missing_verify, reason = \"...\")`"
    );
    assert_eq!(
        err(r#"allow(IDEM002, reason = "  ")"#),
        "`reason` must say why the rule does not apply here"
    );
    assert_eq!(
        err("allow(IDEM002, reason = 3)"),
        "`reason` expects a string, found integer"
    );
}

#[test]
fn all_errors_are_collected() {
    let e = err(r#"verfy = x, max_retries = "1", allow(IDEM001)"#);
    assert_eq!(e.matches(" | ").count(), 2, "{e}");
}

#[test]
fn missing_comma_is_reported() {
    assert_eq!(
        err("max_retries = 1 verify = x"),
        "expected `,` between entries of `#[side_effect(...)]`"
    );
}

#[test]
fn error_spans_point_at_the_offending_token() {
    let tokens: proc_macro2::TokenStream = "key = [a], max_retries = \"1\"".parse().unwrap();
    let e = syn::parse2::<SideEffectAttr>(tokens).unwrap_err();
    let start = e.span().start();
    assert_eq!((start.line, start.column), (1, 25));
}

#[test]
fn allow_comments() {
    let (rules, reason) =
        parse_allow_comment(r#"allow(IDEM001, IDEM002, reason = "read-only in practice")"#)
            .unwrap();
    assert_eq!(rules, [RuleCode::Idem001, RuleCode::Idem002]);
    assert_eq!(reason, "read-only in practice");
    assert!(
        parse_allow_comment("allow(IDEM001)")
            .unwrap_err()
            .contains("requires `reason")
    );
    assert!(
        parse_allow_comment("deny(IDEM001)")
            .unwrap_err()
            .contains("expected `allow(...)`")
    );
}

// ---------------------------------------------------------------- rules

#[test]
fn complete_contract_passes() {
    assert!(codes(COMPLETE).is_empty());
    assert!(codes("key_fn = charge_key, verify = find_charge, max_retries = 0").is_empty());
    assert!(codes("key = [customer], verify = f, max_retries = 1, server_dedup = true").is_empty());
}

#[test]
fn read_tools_need_no_contract() {
    assert!(codes(r#"kind = "read""#).is_empty());
}

#[test]
fn idem001_002_003_fire_on_missing_parts() {
    assert_eq!(codes(""), ["IDEM001", "IDEM002", "IDEM003"]);
    assert_eq!(codes("verify = f, max_retries = 0"), ["IDEM001"]);
    assert_eq!(codes("key = [customer], max_retries = 0"), ["IDEM002"]);
    assert_eq!(codes("key = [customer], verify = f"), ["IDEM003"]);
}

#[test]
fn idem004_unstable_key() {
    assert_eq!(
        codes("key = [idempotency_key], verify = f, max_retries = 0"),
        ["IDEM004"]
    );
    assert_eq!(
        codes("key = [args.attempt], verify = f, max_retries = 0"),
        ["IDEM004"]
    );
    assert_eq!(
        codes("key_fn = uuid::Uuid::new_v4, verify = f, max_retries = 0"),
        ["IDEM004"]
    );
    assert_eq!(
        codes("key_fn = chrono::Utc::now, verify = f, max_retries = 0"),
        ["IDEM004"]
    );
    assert!(codes("key = [order_id], verify = f, max_retries = 0").is_empty());
    assert!(codes(r#"kind = "read", key = [idempotency_key]"#).is_empty());
}

#[test]
fn key_context_grammar() {
    let a = parse("key_fn = digest_key, key_context = [scope, clock]").unwrap();
    let parts: Vec<&str> = a
        .key_context
        .as_ref()
        .unwrap()
        .parts
        .iter()
        .map(|p| p.value.as_str())
        .collect();
    assert_eq!(parts, ["scope", "clock"]);
    assert!(err("key = [order_id], key_context = [scope]").contains("needs `key_fn = path`"));
    assert!(err("key_context = [scope]").contains("needs `key_fn = path`"));
    assert!(err("key_fn = k, key_context = []").contains("at least one of scope, clock, worker"));
    assert!(err("key_fn = k, key_context = [clok]").contains("did you mean `clock`?"));
    assert!(err("key_fn = k, key_context = [scope, scope]").contains("listed twice"));
    assert!(err("key_fn = k, key_context = scope").contains("expects a list"));
    // The contract as data names what the key reads.
    let attr: SideEffectAttr =
        syn::parse_str("key_fn = k, key_context = [worker], verify = f, max_retries = 0").unwrap();
    let func: syn::ItemFn = syn::parse_str(CHARGE).unwrap();
    let c = contract_of(&attr, &func.sig, None, "billing::create_charge");
    assert_eq!(c.key_context, [idemcheck_spec::model::ContextPart::Worker]);
    assert!(
        serde_json::to_string(&c)
            .unwrap()
            .contains(r#""key_context":["worker"]"#)
    );
}

#[test]
fn idem004_judges_what_a_key_fn_reads() {
    assert!(codes("key_fn = k, key_context = [scope], verify = f, max_retries = 0").is_empty());
    assert_eq!(
        codes("key_fn = k, key_context = [clock], verify = f, max_retries = 0"),
        ["IDEM004"]
    );
    assert_eq!(
        codes("key_fn = k, key_context = [worker], verify = f, max_retries = 0"),
        ["IDEM004"]
    );
    assert_eq!(
        codes("key_fn = k, key_context = [scope, clock, worker], verify = f, max_retries = 0"),
        ["IDEM004", "IDEM004"]
    );
    // Suppressible with a reason, like every IDEM004.
    assert!(
        codes(r#"key_fn = k, key_context = [clock], verify = f, max_retries = 0, allow(IDEM004, reason = "one digest per calendar day, by design")"#)
            .is_empty()
    );
    let v = verdict_with(
        "key_fn = k, key_context = [clock], verify = f, max_retries = 0",
        CHARGE,
        None,
        &Config::default(),
    );
    assert_eq!(v.len(), 1);
}

#[test]
fn idem005_cap_above_configured_maximum() {
    assert_eq!(
        codes("key = [customer], verify = f, max_retries = 3, settle_ms = 30_000"),
        ["IDEM005"]
    );
    let config =
        Config::from_idemcheck_toml(std::path::Path::new("i.toml"), "max_retries = 3").unwrap();
    let v = verdict_with(
        "key = [customer], verify = f, max_retries = 3, settle_ms = 30_000",
        CHARGE,
        None,
        &config,
    );
    assert!(v.is_empty());
}

#[test]
fn idem007_hints_contradict_contract() {
    let v = verdict_with(
        COMPLETE,
        CHARGE,
        Some("annotations(read_only_hint = true)"),
        &Config::default(),
    );
    assert_eq!(
        v.iter().map(|x| x.0).collect::<Vec<_>>(),
        [RuleCode::Idem007]
    );
    let v = verdict_with(
        "verify = f, max_retries = 0, allow(missing_key, reason = \"x\")",
        CHARGE,
        Some("annotations(idempotent_hint = true)"),
        &Config::default(),
    );
    assert_eq!(
        v.iter()
            .filter(|x| x.2.is_none())
            .map(|x| x.0)
            .collect::<Vec<_>>(),
        [RuleCode::Idem007]
    );
    let v = verdict_with(
        COMPLETE,
        CHARGE,
        Some("annotations(read_only_hint = false, idempotent_hint = true)"),
        &Config::default(),
    );
    assert!(v.is_empty());
    let v = verdict_with(
        r#"kind = "read""#,
        CHARGE,
        Some("annotations(read_only_hint = true)"),
        &Config::default(),
    );
    assert!(v.is_empty());
}

#[test]
fn idem009_retrying_writer_without_settle_or_dedup_warns() {
    let v = verdict_with(
        "key = [customer], verify = f, max_retries = 1",
        CHARGE,
        None,
        &Config::default(),
    );
    assert_eq!(v, [(RuleCode::Idem009, Severity::Warning, None)]);
    assert!(codes("key = [customer], verify = f, max_retries = 0").is_empty());
    assert!(codes("key = [customer], verify = f, max_retries = 1, settle_ms = 30_000").is_empty());
    assert!(codes("key = [customer], verify = f, max_retries = 1, server_dedup").is_empty());
}

/// A settle window shorter than the attempt it must cover is IDEM009 too (the rig example's
/// `settle_ms = 2_000` under the default 30 s attempt failed the simulator), unless the
/// contract says why it is safe.
#[test]
fn idem009_a_settle_window_shorter_than_the_attempt_warns() {
    let short = |attr: &str| verdict_with(attr, CHARGE, None, &Config::default());
    let v = short("key = [customer], verify = f, max_retries = 1, settle_ms = 2_000");
    assert_eq!(v, [(RuleCode::Idem009, Severity::Warning, None)]);
    let v = short(
        "key = [customer], verify = f, max_retries = 1, timeout_ms = 60_000, settle_ms = 30_000",
    );
    assert_eq!(v, [(RuleCode::Idem009, Severity::Warning, None)]);
    assert!(
        short(
            "key = [customer], verify = f, max_retries = 1, timeout_ms = 2_000, settle_ms = 2_000"
        )
        .is_empty()
    );
    assert!(short("key = [customer], verify = f, max_retries = 0, settle_ms = 2_000").is_empty());
    let v = short(
        r#"key = [customer], verify = f, max_retries = 1, settle_ms = 2_000, allow(unbounded_in_flight, reason = "the queue commits within 1 s of acceptance")"#,
    );
    assert_eq!(v.len(), 1);
    assert!(v[0].2.is_some(), "suppressed with its reason: {v:?}");
    let message = idemcheck_spec::check::check_contract(idemcheck_spec::check::CheckInput {
        attr: &syn::parse_str(
            "key = [customer], verify = f, max_retries = 1, timeout_ms = 60_000, settle_ms = 2_000",
        )
        .unwrap(),
        sig: &syn::parse_str::<syn::ItemFn>(CHARGE).unwrap().sig,
        hints: None,
        config: &Config::default(),
    })
    .violations[0]
        .message
        .clone();
    assert!(
        message.contains("shorter than its attempt timeout (`timeout_ms = 60000`)"),
        "{message}"
    );
}

#[test]
fn idem011_key_fields_resolve_against_the_signature() {
    let func =
        "async fn send(mail: &Mailer, to: String, body: String) -> Result<(), E> { todo!() }";
    assert_eq!(
        codes_of("key = [too], verify = f, max_retries = 0", func),
        ["IDEM011"]
    );
    assert_eq!(
        codes_of("key = [mail], verify = f, max_retries = 0", func),
        ["IDEM011"]
    );
    assert!(codes_of("key = [to], verify = f, max_retries = 0", func).is_empty());
}

#[test]
fn configuration_changes_severity_and_turns_rules_off() {
    let config = Config::from_idemcheck_toml(
        std::path::Path::new("i.toml"),
        "[rules]\nIDEM009 = \"error\"\nmissing_verify = \"allow\"\n",
    )
    .unwrap();
    let v = verdict_with("key = [customer], max_retries = 1", CHARGE, None, &config);
    assert_eq!(v, [(RuleCode::Idem009, Severity::Error, None)]);
}

#[test]
fn allow_suppresses_and_reports_use() {
    let attr: SideEffectAttr = syn::parse_str(
        r#"key = [customer], max_retries = 0, allow(missing_verify, reason = "no read API"), allow(IDEM005, reason = "x")"#,
    )
    .unwrap();
    let func: syn::ItemFn = syn::parse_str(CHARGE).unwrap();
    let mut verdict = check_contract(CheckInput {
        attr: &attr,
        sig: &func.sig,
        hints: None,
        config: &Config::default(),
    });
    let uses = apply_allows(&mut verdict.violations, &attr.allows);
    assert!(!verdict.has_errors());
    assert_eq!(
        verdict.violations[0].suppressed.as_deref(),
        Some("no read API")
    );
    assert_eq!(
        uses.iter().map(|u| (u.code, u.used)).collect::<Vec<_>>(),
        [(RuleCode::Idem002, true), (RuleCode::Idem005, false)]
    );
}

#[test]
fn malformed_contract_cannot_be_suppressed() {
    let func =
        "async fn send(mail: &Mailer, to: String, body: String) -> Result<(), E> { todo!() }";
    assert_eq!(
        codes_of(
            r#"key = [too], verify = f, max_retries = 0, allow(malformed_contract, reason = "x")"#,
            func
        ),
        ["IDEM011"]
    );
}

#[test]
fn violations_point_at_exact_tokens() {
    let attr: SideEffectAttr =
        syn::parse_str("key = [customer], verify = f, max_retries = 7, settle_ms = 1").unwrap();
    let func: syn::ItemFn = syn::parse_str(CHARGE).unwrap();
    let verdict = check_contract(CheckInput {
        attr: &attr,
        sig: &func.sig,
        hints: None,
        config: &Config::default(),
    });
    let v = &verdict.violations[0];
    assert_eq!(v.code, RuleCode::Idem005);
    assert_eq!(v.span.start.start().column, 44);
    let verdict = check_contract(CheckInput {
        attr: &SideEffectAttr::default(),
        sig: &func.sig,
        hints: None,
        config: &Config::default(),
    });
    assert_eq!(
        verdict.violations[0].span.start.start().column,
        9,
        "the function name"
    );
}

#[test]
fn contract_as_data() {
    let attr: SideEffectAttr = syn::parse_str(
        r#"key = [customer, order_id], verify = billing::find_charge, max_retries = 1, settle_ms = 30_000, allow(IDEM009, reason = "x")"#,
    )
    .unwrap();
    let func: syn::ItemFn = syn::parse_str(CHARGE).unwrap();
    let c = contract_of(&attr, &func.sig, None, "billing::create_charge");
    assert_eq!(c.name, "create_charge");
    assert_eq!(
        c.key,
        Some(KeyDerivation::Fields {
            fields: vec!["customer".into(), "order_id".into()]
        })
    );
    assert_eq!(c.verify.as_deref(), Some("billing::find_charge"));
    assert_eq!(c.ttl_hours, 24);
    assert!(c.is_complete());
    let hints = ToolHints::from_tokens(r#"name = "charge_card""#.parse().unwrap());
    assert_eq!(
        contract_of(&attr, &func.sig, Some(&hints), "x").name,
        "charge_card"
    );
}

// ---------------------------------------------------------------- schemas

#[test]
fn checked_in_schemas_and_rule_docs_are_current() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (path, expected) in idemcheck_spec::schema::generated_files() {
        let actual = std::fs::read_to_string(dir.join(path)).unwrap_or_default();
        assert!(
            actual == expected,
            "specs/{path} is stale: run `cargo run -p idemcheck-spec --example gen` and commit the result"
        );
    }
}

#[test]
fn explain_text_exists_for_every_code() {
    for code in RuleCode::ALL {
        let md = idemcheck_spec::rules::info(code).markdown();
        assert!(md.starts_with(&format!("# {code} `{}`", code.name())));
        assert!(md.contains("## Why") && md.contains("```rust"));
    }
}

/// The one rule for key fields the caller chooses per operation (what the advice to a model
/// may tell it to change): references and request ids, never the thing acted on.
#[test]
fn caller_chosen_key_fields() {
    use idemcheck_spec::keys::is_caller_chosen;
    for chosen in [
        "reference",
        "client_reference",
        "args.payment_ref",
        "request_id",
        "idempotency_key",
        "correlation_id",
    ] {
        assert!(is_caller_chosen(chosen), "{chosen}");
    }
    for subject in [
        "ticket_id",
        "order_id",
        "customer",
        "args.to",
        "referee",
        "preference",
    ] {
        assert!(!is_caller_chosen(subject), "{subject}");
    }
}

// ---------------------------------------------------------------- verify = none

/// `verify = none`: a conscious, documented choice. IDEM002 is satisfied; nothing else is
/// excused (a missing key is still IDEM001, a missing cap IDEM003).
#[test]
fn verify_none_is_a_declared_choice() {
    let a = parse("key = [customer, order_id], verify = none, max_retries = 0").unwrap();
    assert!(a.verify.is_none());
    assert!(a.verify_none.is_some());
    assert!(a.declares_verify());
    assert_eq!(
        codes("key = [customer, order_id], verify = none, max_retries = 0"),
        Vec::<&str>::new()
    );
    assert_eq!(codes("verify = none, max_retries = 0"), ["IDEM001"]);
    assert_eq!(
        codes("key = [customer, order_id], verify = none"),
        ["IDEM003"]
    );
    // Without it, IDEM002 still fires.
    assert_eq!(
        codes("key = [customer, order_id], max_retries = 0"),
        ["IDEM002"]
    );
    // A real function named like a path still parses as a postcondition.
    let a = parse("key = [customer], verify = billing::none, max_retries = 0").unwrap();
    assert!(a.verify.is_some() && a.verify_none.is_none());
    // As data: no path, and the choice kept.
    let func: syn::ItemFn = syn::parse_str(CHARGE).unwrap();
    let a = parse("key = [customer, order_id], verify = none, max_retries = 0").unwrap();
    let c = contract_of(&a, &func.sig, None, "billing::create_charge");
    assert_eq!(c.verify, None);
    assert!(c.no_postcondition);
    assert!(c.is_complete());
    let json = serde_json::to_value(&c).unwrap();
    assert_eq!(json["no_postcondition"], true);
    // Contracts with a postcondition serialise as before (no new field).
    let a = parse(COMPLETE).unwrap();
    let json = serde_json::to_value(contract_of(&a, &func.sig, None, "f")).unwrap();
    assert!(json.get("no_postcondition").is_none(), "{json}");
}

/// Without a read, an interrupted call is never retried (it could send twice), so a cap above
/// zero contradicts `verify = none` — unless the API deduplicates on the key.
#[test]
fn verify_none_with_retries_needs_server_dedup() {
    let e = err("key = [customer, order_id], verify = none, max_retries = 2");
    assert!(
        e.contains("`max_retries = 2` with `verify = none`")
            && e.contains("write `max_retries = 0`, or add `server_dedup = true`"),
        "{e}"
    );
    assert!(e.contains("`verify = none` given here"), "{e}");
    assert_eq!(
        codes(
            "key = [customer, order_id], verify = none, max_retries = 1, settle_ms = 30_000, server_dedup = true"
        ),
        Vec::<&str>::new()
    );
    // A read tool is not judged.
    assert!(parse(r#"kind = "read", verify = none, max_retries = 2"#).is_ok());
}

#[test]
fn verify_none_satisfies_the_idempotent_hint() {
    let hints = r#"annotations(idempotent_hint = true)"#;
    let got = verdict_with(
        "key = [customer, order_id], verify = none, max_retries = 0",
        CHARGE,
        Some(hints),
        &Config::default(),
    );
    assert!(
        !got.iter().any(|(c, _, _)| *c == RuleCode::Idem007),
        "{got:?}"
    );
}

#[test]
fn the_idem004_text_states_the_one_rule_for_caller_chosen_keys() {
    let info = idemcheck_spec::rules::info(RuleCode::Idem004);
    assert!(info.what.contains(idemcheck_spec::keys::RULE));
    let md = info.markdown();
    assert!(md.contains("a `reference` (or `*_ref`"), "{md}");
}

/// The packages of `cargo tree -p idemcheck` (the runtime, default features) over `edges`,
/// one name per package. Run offline on the workspace's manifest, so from any directory and
/// whatever the target directory.
fn runtime_dependencies(edges: &str) -> std::collections::BTreeSet<String> {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
    let out = std::process::Command::new(env!("CARGO"))
        .args(["tree", "--offline", "--color", "never", "--prefix", "none"])
        .args(["-p", "idemcheck", "-e", edges, "--manifest-path"])
        .arg(&manifest)
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let names: std::collections::BTreeSet<String> = stdout
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect();
    assert!(names.contains("idemcheck"), "no runtime in:\n{stdout}");
    names
}

/// Issue 25, "a light runtime": the runtime needs five model types and the rule catalogue of
/// this crate, which come without its features, so an `idemcheck` user compiles no schema
/// generator, TOML reader or suggestion crate at all, and the parser crates (syn, quote,
/// proc-macro2, toml_edit) only for proc macros (`#[side_effect]`, serde's derives ...).
#[test]
fn runtime_default_build_pulls_no_parser_schema_or_config_crates() {
    const NEVER: [&str; 3] = ["schemars", "toml", "strsim"];
    const ONLY_IN_PROC_MACROS: [&str; 4] = ["syn", "quote", "proc-macro2", "toml_edit"];
    let all = runtime_dependencies("normal");
    for name in NEVER {
        assert!(
            !all.contains(name),
            "`cargo tree -p idemcheck -e normal` holds {name}: {all:?}"
        );
    }
    // The macro is part of the default build: it is in the full graph, not in the other.
    assert!(
        all.contains("idemcheck-macros") && all.contains("syn"),
        "{all:?}"
    );
    let compiled_in = runtime_dependencies("normal,no-proc-macro");
    assert!(compiled_in.contains("idemcheck-spec"), "{compiled_in:?}");
    for name in NEVER.into_iter().chain(ONLY_IN_PROC_MACROS) {
        assert!(
            !compiled_in.contains(name),
            "`cargo tree -p idemcheck -e normal,no-proc-macro` holds {name}: {compiled_in:?}"
        );
    }
}
