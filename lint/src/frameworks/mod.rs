//! Tool styles: one module per [`ToolStyle`], each saying what the style looks like in
//! source and recognising it.
//!
//! Each module reads syntax only and answers "is this a tool, named what, with its body
//! where"; the collector's one `syn::visit::Visit` walk (`collect/visit.rs`) calls into them
//! from its item and expression arms, and turns the answers into
//! [`crate::facts::ToolFacts`] (signatures, contract check, recorded bodies) with its own
//! machinery (`collect/tools.rs` for attributes and impls, `collect/hooks.rs` for bodies
//! found inside functions, tools linked across items and derived tools).
//!
//! | style (`ToolStyle`) | module | what it looks like |
//! |---|---|---|
//! | `side_effect` (`SideEffect`) | [`side_effect`] | `#[side_effect(key = [..], ..)]` on a function |
//! | `rmcp` (`Rmcp`) | [`rmcp`] | `#[tool]` methods of a `#[tool_router]` impl, rmcp's `#[tool]` on functions |
//! | `rmcp-tool-base` (`RmcpToolBase`) | [`rmcp_tool_base`] | `impl ToolBase for T` + `impl AsyncTool for T` |
//! | `rig` (`RigTrait`) | [`rig`] | `impl Tool for T` with `const NAME` and `fn call`, by path or shape |
//! | `rig-attr` (`RigAttr`) | [`rig_attr`] | `#[rig_tool(..)]` on a function |
//! | `rust-mcp-sdk` (`McpSdk`) | [`mcp_sdk`] | `#[mcp_tool(..)]` on a struct, its `call_tool` the body |
//! | `configured` (`Configured`) | [`configured`] | `tool_attributes` / `tool_traits` of the configuration |
//! | `mcp-tools` (`McpTools`) | [`mcp_tools`] | public methods of a pulseengine `#[mcp_tools]` impl |
//! | `swiftide` (`Swiftide`) | [`swiftide`] | swiftide's `#[tool(..)]` functions and `#[derive(Tool)]` structs |
//! | `adk-function-tool` (`AdkFunctionTool`) | [`function_tool`] | `FunctionTool::new("name", "description", handler)` |
//! | `mcp-dispatch` (`McpDispatch`) | [`dispatch`] | string-literal arms of a hand-written `tools/call` `match` |
//! | `tool-attr` (`ToolAttr`) | [`tool_attr`] | another tool-macro crate's `#[tool]` (riglr and look-alikes) |
//! | `tool-trait` (`ToolTrait`) | [`tool_trait`] | impls of a hand-written tool trait (`fn name` + `fn execute` + a schema) |
//! | `tool-registry` (`Registry`) | [`registry`] | `registry.register("name", "A description.", schema, handler)` |
//! | `data-file` (`DataFile`) | [`data_file`] | entries of a `tools.json`/`tools.toml` list (embedded or read at start-up) run by one executor |
//!
//! What is shared: the classification of a function's attributes ([`attr_mark`]: which
//! crate's `#[tool]` it is, and whether it is a contract), the dropping of tools that repeat a
//! definition in another style once every file is collected ([`drop_repeated`]), and small
//! syntax helpers. Each module's tests feed it small source strings (through
//! `crate::analysis::inventory_rows`, or the collector's facts) so that a red test names its
//! style. The byte search that decides which packages are parsed at all (`prefilter.rs`) has
//! a mark for each style.

pub mod annotations;
pub mod configured;
pub mod data_file;
pub mod dispatch;
pub mod function_tool;
pub mod mcp_sdk;
pub mod mcp_tools;
pub mod registry;
pub mod rig;
pub mod rig_attr;
pub mod rmcp;
pub mod rmcp_tool_base;
pub mod side_effect;
pub mod swiftide;
pub mod tool_attr;
pub mod tool_macro;
pub mod tool_trait;

use proc_macro2::Span;
use syn::{Expr, Lit};

use crate::facts::{CallTarget, FileFacts, ToolBody, ToolStyle};

/// What an attribute of a function says about it (see [`attr_mark`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttrMark {
    /// `#[side_effect]`: the function's contract ([`side_effect`]).
    Contract,
    /// A framework's tool attribute: the function is a tool of this style (of several, the
    /// last written wins).
    Tool(ToolStyle),
    /// A configured attribute whose last segment is not `tool`: a [`ToolStyle::Configured`]
    /// tool, unless an attribute before it already marked the function.
    ConfiguredFallback,
}

/// Where a function's attributes are read: what decides whose `#[tool]` a bare one is.
#[derive(Debug, Clone, Copy)]
pub struct AttrCx<'a> {
    /// The function is a method of a router impl ([`rmcp::is_router_attr`]).
    pub router: bool,
    /// The file (or inline module) imports swiftide.
    pub uses_swiftide: bool,
    /// The file (or inline module) imports from rmcp.
    pub uses_rmcp: bool,
    /// The configured `tool_attributes`.
    pub tool_attributes: &'a [String],
    /// Their last segments ([`configured::last_segments`]).
    pub configured_lasts: &'a [String],
}

/// What an attribute, its path resolved through `use` (`cfg_attr` expanded), says of the
/// function it is on. Several crates export an attribute called `tool`: it is swiftide's
/// ([`swiftide::is_tool_attr`]), else rmcp's ([`rmcp::is_tool_attr`]), else a configured one
/// ([`configured::matches`]), else — unless the configuration names its own `tool` —
/// another tool-macro crate's ([`tool_attr::is_other_tool_attr`]).
pub fn attr_mark(resolved: &[String], cx: &AttrCx<'_>) -> Option<AttrMark> {
    let last = resolved.last()?;
    match last.as_str() {
        side_effect::ATTR => Some(AttrMark::Contract),
        rig_attr::ATTR => Some(AttrMark::Tool(ToolStyle::RigAttr)),
        mcp_tools::METHOD_MARKER => Some(AttrMark::Tool(ToolStyle::McpTools)),
        "tool" if swiftide::is_tool_attr(resolved, cx.router, cx.uses_swiftide, cx.uses_rmcp) => {
            Some(AttrMark::Tool(ToolStyle::Swiftide))
        }
        "tool" => {
            if rmcp::is_tool_attr(resolved, cx.router, cx.uses_rmcp) {
                Some(AttrMark::Tool(ToolStyle::Rmcp))
            } else if configured::matches(cx.tool_attributes, resolved) {
                Some(AttrMark::Tool(ToolStyle::Configured))
            } else if !cx.configured_lasts.iter().any(|c| c == "tool")
                && tool_attr::is_other_tool_attr(resolved)
            {
                // When the configuration names its `tool` attribute, that one is the tool
                // marker and other crates' `tool` (tracing spans) are not.
                Some(AttrMark::Tool(ToolStyle::ToolAttr))
            } else {
                None
            }
        }
        _ if configured::matches(cx.tool_attributes, resolved) => {
            Some(AttrMark::ConfiguredFallback)
        }
        // Another crate's (or the workspace's own) tool attribute on a function, named for
        // tools (`#[mcp_tool(name = "azdo_create_work_item", description = "..")]`,
        // `#[agent_tool]`): a tool whose body is the function, as `#[tool]` of a tool-macro
        // crate is.
        _ if !cx.configured_lasts.iter().any(|c| c == "tool")
            && tool_attr::is_named_for_tools(resolved) =>
        {
            Some(AttrMark::Tool(ToolStyle::ToolAttr))
        }
        _ => None,
    }
}

/// Drop tools that repeat another definition:
///
/// - dispatch arms and function tools that repeat the name of a tool defined in another
///   style anywhere in the files (a hand-written `call_tool` dispatching to `#[mcp_tool]`
///   structs or rig tools: those are the definitions), and repeats among themselves;
/// - trait impls (rig's `Tool` by shape, configured traits) named like a `#[tool]` function
///   of a tool-macro crate in the same crate: the macro generates the tool's type from the
///   function (riglr: `transfer_sol` → `TransferSolTool`), and a hand-written impl of another
///   trait for that type is the same tool again.
pub fn drop_repeated(files: &mut [FileFacts]) {
    name_by_consts(files);
    annotations::apply_shared(files);
    drop_generated_twins(files);
    confirm_provisional(files);
    drop_stamped_wrappers(files);
    prefix_namespaced_tools(files);
    narrow_shared_handlers(files);
    let weak = is_weak_style;
    if !files.iter().any(|f| f.tools.iter().any(|t| weak(t.style))) {
        return;
    }
    lend_arm_bodies(files);
    let strong: rustc_hash::FxHashSet<String> = files
        .iter()
        .flat_map(|f| f.tools.iter())
        .filter(|t| !weak(t.style))
        .map(|t| t.name.clone())
        .collect();
    let mut seen = rustc_hash::FxHashSet::default();
    for f in files.iter_mut() {
        let krate = f.krate;
        f.tools.retain(|t| {
            !weak(t.style) || (!strong.contains(&t.name) && seen.insert((krate, t.name.clone())))
        });
    }
}

/// A tool defined without a body of its own (rust-mcp-sdk's `#[mcp_tool]` struct, whose
/// server runs it inline: `match params.name.as_str() { "take_screenshot" => { .. } }`) takes
/// the body of the dispatch arm of its name in the same file; the arm, a repeat of the
/// definition, is then dropped with the other repeats.
fn lend_arm_bodies(files: &mut [FileFacts]) {
    // Only a file with both an arm and a tool of another style may lend.
    let may_lend = |f: &FileFacts| {
        f.tools.iter().any(|t| t.style == ToolStyle::McpDispatch)
            && f.tools
                .iter()
                .any(|t| !is_weak_style(t.style) && !matches!(t.body, ToolBody::Local(_)))
    };
    if !files.iter().any(may_lend) {
        return;
    }
    // The methods of the workspace, by type: a body named `Method(ty, names)` exists when
    // one of them is there.
    let methods: rustc_hash::FxHashSet<(&str, &str)> = files
        .iter()
        .flat_map(|f| f.fns.iter())
        .filter_map(|g| Some((g.self_ty.as_deref()?, g.name.as_str())))
        .collect();
    let bodiless = |t: &crate::facts::ToolFacts| {
        !is_weak_style(t.style)
            && match &t.body {
                ToolBody::None => true,
                ToolBody::Method(ty, names) => {
                    let ty = ty.rsplit("::").next().unwrap_or(ty);
                    !names.iter().any(|n| methods.contains(&(ty, n.as_str())))
                }
                ToolBody::Local(_) => false,
            }
    };
    let lend: Vec<(usize, usize, ToolBody)> = files
        .iter()
        .enumerate()
        .flat_map(|(fi, f)| {
            let arms: rustc_hash::FxHashMap<&str, &ToolBody> = f
                .tools
                .iter()
                .filter(|t| {
                    t.style == ToolStyle::McpDispatch && matches!(t.body, ToolBody::Local(_))
                })
                .map(|t| (t.name.as_str(), &t.body))
                .collect();
            f.tools
                .iter()
                .enumerate()
                .filter(|(_, t)| !arms.is_empty() && bodiless(t))
                .filter_map(|(ti, t)| arms.get(t.name.as_str()).map(|b| (fi, ti, (*b).clone())))
                .collect::<Vec<_>>()
        })
        .collect();
    for (fi, ti, body) in lend {
        files[fi].tools[ti].body = body;
    }
}

/// Tools a `match` names by a constant (`TOOL_LIST => ..`, [`dispatch::const_arms`]) take
/// the constant's text (`"nodus_list"`), from any file of their crate (else of the
/// workspace), when one constant of that name is known; so do the arms a dispatcher handed
/// the name notes ([`crate::facts::FnFacts::name_arms`]). An arm named by a type's constant
/// of no known text (`ReplaceToolSpec::NAME`) is dropped: that type's tool is defined, and
/// named, in its own style.
pub fn name_by_consts(files: &mut [FileFacts]) {
    if !files.iter().any(|f| {
        f.tools
            .iter()
            .any(|t| t.style == ToolStyle::McpDispatch && dispatch::is_const_name(&t.name))
            || f.fns
                .iter()
                .any(|g| g.name_arms.iter().any(|(n, _)| dispatch::is_const_name(n)))
    }) {
        return;
    }
    // Constant -> its text, per crate and in all; `None` where two texts disagree.
    let mut by_crate: rustc_hash::FxHashMap<(usize, String), Option<String>> =
        rustc_hash::FxHashMap::default();
    let mut all: rustc_hash::FxHashMap<String, Option<String>> = rustc_hash::FxHashMap::default();
    let agree = |text: &mut Option<String>, v: &str| {
        if text.as_deref() != Some(v) {
            *text = None;
        }
    };
    for f in files.iter() {
        for (c, v) in &f.name_consts {
            by_crate
                .entry((f.krate, c.clone()))
                .and_modify(|t| agree(t, v))
                .or_insert_with(|| Some(v.clone()));
            all.entry(c.clone())
                .and_modify(|t| agree(t, v))
                .or_insert_with(|| Some(v.clone()));
        }
    }
    let text = |krate: usize, c: &str| -> Option<String> {
        match by_crate.get(&(krate, c.to_string())) {
            Some(t) => t.clone(),
            None => all.get(c).cloned().flatten(),
        }
    };
    for f in files.iter_mut() {
        let krate = f.krate;
        for t in &mut f.tools {
            if t.style == ToolStyle::McpDispatch
                && dispatch::is_const_name(&t.name)
                && let Some(v) = text(krate, &t.name)
            {
                t.name = v;
            }
        }
        for g in &mut f.fns {
            for (n, _) in &mut g.name_arms {
                if dispatch::is_const_name(n)
                    && let Some(v) = text(krate, n)
                {
                    *n = v;
                }
            }
        }
        // A type's constant of no known text (`ReplaceToolSpec::NAME = REPLACE_TOOL_NAME`):
        // that type's tool, defined (and named) elsewhere, not one of its own.
        f.tools.retain(|t| {
            !(t.style == ToolStyle::McpDispatch
                && t.name.contains("::")
                && dispatch::is_const_name(&t.name))
        });
    }
}

/// The last name of what a call targets (a function's or a method's).
fn callee_name(t: &CallTarget) -> Option<String> {
    match t {
        CallTarget::Path { segments, .. } => segments.last().cloned(),
        CallTarget::SelfMethod(n)
        | CallTarget::TypeFn(_, n)
        | CallTarget::FieldMethod(_, n)
        | CallTarget::TypedFieldMethod(_, _, n)
        | CallTarget::AnyMethod(n)
        | CallTarget::TypedMethod(_, n)
        | CallTarget::ReturnedMethod(_, n) => Some(n.clone()),
    }
}

/// Tools a dispatcher serves under a namespace its caller strips (`if let Some(t) =
/// tool_name.strip_prefix("mcp__proxy__tracing__") { handle_tracing_tool(t, ..) }`, and
/// `match tool_name { "start_session" => .. }` there): the model calls them by the whole
/// name, `mcp__proxy__tracing__start_session`.
fn prefix_namespaced_tools(files: &mut [FileFacts]) {
    if !files
        .iter()
        .any(|f| f.fns.iter().any(|g| !g.name_prefixes.is_empty()))
    {
        return;
    }
    let mut by_name: rustc_hash::FxHashMap<(usize, String), Vec<(usize, usize)>> =
        rustc_hash::FxHashMap::default();
    for (fi, f) in files.iter().enumerate() {
        for (j, g) in f.fns.iter().enumerate() {
            if !g.name_arms.is_empty() {
                by_name
                    .entry((f.krate, g.name.clone()))
                    .or_default()
                    .push((fi, j));
            }
        }
    }
    // (file, arm function) → the prefix its tool's name takes.
    let mut prefix_of: rustc_hash::FxHashMap<(usize, usize), String> =
        rustc_hash::FxHashMap::default();
    for f in files.iter() {
        for g in &f.fns {
            for (ci, prefix) in &g.name_prefixes {
                let Some(name) = g
                    .calls
                    .get(*ci as usize)
                    .and_then(|c| callee_name(&c.target))
                else {
                    continue;
                };
                for &(hf, hj) in by_name.get(&(f.krate, name)).into_iter().flatten() {
                    for (_, arm) in &files[hf].fns[hj].name_arms {
                        prefix_of
                            .entry((hf, *arm))
                            .or_insert_with(|| prefix.clone());
                    }
                }
            }
        }
    }
    for (fi, f) in files.iter_mut().enumerate() {
        for t in &mut f.tools {
            if let crate::facts::ToolBody::Local(b) = t.body
                && t.style == ToolStyle::McpDispatch
                && let Some(prefix) = prefix_of.get(&(fi, b))
                && !t.name.starts_with(prefix.as_str())
            {
                t.name = format!("{prefix}{}", t.name);
            }
        }
    }
}

/// Styles whose tools may repeat a definition made in another style (a dispatch arm, a
/// function tool, a registry entry naming a tool defined elsewhere): they give way to it.
fn is_weak_style(s: ToolStyle) -> bool {
    matches!(
        s,
        ToolStyle::McpDispatch | ToolStyle::AdkFunctionTool | ToolStyle::Registry
    )
}

/// How many calls from a tools/call handler a dispatcher it hands the tool name to may be.
const HANDOFF_DEPTH: usize = 4;

/// The functions (file, index) a tools/call handler reaches within [`HANDOFF_DEPTH`] calls,
/// with the number of calls — followed by the called names, as the per-file facts write
/// them, inside the caller's crate.
pub(crate) fn handler_depths(files: &[FileFacts]) -> rustc_hash::FxHashMap<(usize, usize), usize> {
    // Functions by (crate, name).
    let mut by_name: rustc_hash::FxHashMap<(usize, &str), Vec<(usize, usize)>> =
        rustc_hash::FxHashMap::default();
    let mut queue = std::collections::VecDeque::new();
    let mut depth_of: rustc_hash::FxHashMap<(usize, usize), usize> =
        rustc_hash::FxHashMap::default();
    for (fi, f) in files.iter().enumerate() {
        for (j, g) in f.fns.iter().enumerate() {
            by_name
                .entry((f.krate, g.name.as_str()))
                .or_default()
                .push((fi, j));
            if g.tools_handler {
                depth_of.insert((fi, j), 0);
                queue.push_back((fi, j));
            }
        }
    }
    while let Some((fi, j)) = queue.pop_front() {
        let d = depth_of[&(fi, j)];
        if d >= HANDOFF_DEPTH {
            continue;
        }
        let krate = files[fi].krate;
        for call in &files[fi].fns[j].calls {
            let Some(n) = callee_name(&call.target) else {
                continue;
            };
            for &next in by_name.get(&(krate, n.as_str())).into_iter().flatten() {
                if let std::collections::hash_map::Entry::Vacant(v) = depth_of.entry(next) {
                    v.insert(d + 1);
                    queue.push_back(next);
                }
            }
        }
    }
    depth_of
}

/// The first rule of [`drop_repeated`]: a provisional tool (an arm of a function that
/// dispatches on a tool name it is given) stays when a tools/call handler of its crate
/// reaches that function within [`HANDOFF_DEPTH`] calls — followed by the called names, as
/// the per-file facts write them — or that function is the run method of a tool trait's
/// impl, and no other tool of the crate has its name.
fn confirm_provisional(files: &mut [FileFacts]) {
    if !files.iter().any(|f| f.tools.iter().any(|t| t.provisional)) {
        return;
    }
    let depth_of = handler_depths(files);
    let defined: rustc_hash::FxHashSet<(usize, String)> = files
        .iter()
        .flat_map(|f| f.tools.iter().map(move |t| (f.krate, t)))
        .filter(|(_, t)| !t.provisional)
        .map(|(k, t)| (k, t.name.clone()))
        .collect();
    for (fi, f) in files.iter_mut().enumerate() {
        let krate = f.krate;
        let fns = &f.fns;
        f.tools.retain(|t| {
            if !t.provisional {
                return true;
            }
            let crate::facts::ToolBody::Local(body) = t.body else {
                return false;
            };
            // Or the function is the run method of a tool trait's impl that serves several
            // functions by name (`impl Tool for GoalTool { fn invoke(&self, ctx,
            // function_name: &str, args) { match function_name { "set-goal" => .. } } }`).
            let reached = fns.iter().enumerate().any(|(j, g)| {
                g.name_arms.iter().any(|(_, a)| *a == body)
                    && (depth_of.contains_key(&(fi, j))
                        // Handed the whole tool call whose name it matches, or a name
                        // it hands on by its arms.
                        || g.dispatches_tools
                        || (g.impl_trait.as_deref().is_some_and(|t| t.contains("Tool"))
                            && tool_trait::is_run_method(&g.name))
                        // A method of a type named for running tools (`ToolExecutor::
                        // dispatch(&mut self, name: &str, ..)`, an agent loop's executor).
                        || g.self_ty.as_deref().is_some_and(|t| {
                            t.starts_with("Tool")
                                && ["Executor", "Dispatcher", "Runner", "Router", "Registry"]
                                    .iter()
                                    .any(|k| t.ends_with(k))
                        }))
            });
            reached && !defined.contains(&(krate, t.name.clone()))
        });
    }
}

/// A handler value registered under several tool names (`commands.insert("rename",
/// Box::new(RefactorCommands)); commands.insert("inline", Box::new(RefactorCommands))`)
/// whose run method selects the work by a text `match` with an arm for each name (`match
/// method { "rename" => self.rename(..), "inline" => self.inline(..), .. }`): each tool's
/// body is its own arm (recorded as a function of its own, as an executor's arm for a tool
/// defined in data is), not the whole method.
fn narrow_shared_handlers(files: &mut [FileFacts]) {
    use crate::facts::{Call, CallTarget, FnFacts, ToolBody};
    let mut shared: rustc_hash::FxHashMap<(usize, String), usize> = Default::default();
    for f in files.iter() {
        for t in &f.tools {
            if let ToolBody::Method(ty, _) = &t.body
                && t.style == ToolStyle::Registry
            {
                *shared.entry((f.krate, ty.clone())).or_default() += 1;
            }
        }
    }
    shared.retain(|_, n| *n >= 2);
    if shared.is_empty() {
        return;
    }
    let mut arms: rustc_hash::FxHashMap<(usize, usize, usize), CallTarget> = Default::default();
    for fi in 0..files.len() {
        for ti in 0..files[fi].tools.len() {
            let krate = files[fi].krate;
            let t = &files[fi].tools[ti];
            let ToolBody::Method(ty, names) = &t.body else {
                continue;
            };
            if t.style != ToolStyle::Registry || !shared.contains_key(&(krate, ty.clone())) {
                continue;
            }
            // The first run method of the type (in the tool's crate) with an arm for the name.
            let found = names.iter().find_map(|m| {
                files.iter().enumerate().find_map(|(hf, h)| {
                    (h.krate == krate).then_some(())?;
                    h.fns.iter().enumerate().find_map(|(j, g)| {
                        if g.self_ty.as_deref() != Some(ty.as_str()) || g.name != *m {
                            return None;
                        }
                        let a = g
                            .str_arms
                            .iter()
                            .position(|arm| arm.values.contains(&t.name))?;
                        Some((hf, j, a))
                    })
                })
            });
            let Some((hf, j, a)) = found else {
                continue;
            };
            let name = t.name.clone();
            let target = arms
                .entry((hf, j, a))
                .or_insert_with(|| data_file::arm_fn(&mut files[hf], j, a, &name))
                .clone();
            let display = format!("{}[{name:?}]", files[hf].fns[j].display);
            let body = FnFacts {
                name: synthetic_ident("handler", &name, Span::call_site()).to_string(),
                display: display.clone(),
                loc: files[fi].tools[ti].loc,
                calls: vec![Call::to(target)],
                ..FnFacts::default()
            };
            files[fi].fns.push(body);
            let at = files[fi].fns.len() - 1;
            let t = &mut files[fi].tools[ti];
            t.body = ToolBody::Local(at);
            t.function = display;
        }
    }
}

/// Tools a file's own macro stamps out under the name of a tool written out by hand in
/// the same crate (buildscale-ai's `define_rig_tool!(RigMvTool, tools::mv::MvTool, MvArgs,
/// "mv")` wrapping `impl Tool for MvTool` for rig): the same tool again; the hand-written
/// one stays.
fn drop_stamped_wrappers(files: &mut [FileFacts]) {
    if !files.iter().any(|f| f.tools.iter().any(|t| t.expanded)) {
        return;
    }
    let by_hand: rustc_hash::FxHashSet<(usize, String)> = files
        .iter()
        .flat_map(|f| f.tools.iter().map(move |t| (f.krate, t)))
        .filter(|(_, t)| !t.expanded && !t.provisional && !is_weak_style(t.style))
        .map(|(k, t)| (k, t.name.clone()))
        .collect();
    for f in files.iter_mut() {
        let krate = f.krate;
        f.tools
            .retain(|t| !(t.expanded && by_hand.contains(&(krate, t.name.clone()))));
    }
}

/// The second rule of [`drop_repeated`].
fn drop_generated_twins(files: &mut [FileFacts]) {
    let generated: rustc_hash::FxHashSet<(usize, String)> = files
        .iter()
        .flat_map(|f| f.tools.iter().map(move |t| (f.krate, t)))
        .filter(|(_, t)| t.style == ToolStyle::ToolAttr)
        .map(|(k, t)| (k, t.name.clone()))
        .collect();
    if generated.is_empty() {
        return;
    }
    for f in files.iter_mut() {
        let krate = f.krate;
        f.tools.retain(|t| {
            !(matches!(
                t.style,
                ToolStyle::RigTrait | ToolStyle::Configured | ToolStyle::ToolTrait
            ) && generated.contains(&(krate, t.name.clone())))
        });
    }
}

/// `&str`, `&'static str`, `String` (checked without spelling the type out): a text parameter.
pub fn is_text_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => is_text_type(&r.elem),
        syn::Type::Path(p) => p.path.is_ident("str") || p.path.is_ident("String"),
        _ => false,
    }
}

/// `ResetFile` → `reset_file`, `HTTPGet` → `http_get` (heck's snake case, as the tool
/// macros that derive a name from a type use).
pub fn snake_case(name: &str) -> String {
    heck::ToSnakeCase::to_snake_case(name)
}

/// A string literal (through `&`, parentheses and `.to_string()`-like conversions), with
/// its span.
pub fn str_lit(e: &Expr) -> Option<(String, Span)> {
    match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Str(s) => Some((s.value(), s.span())),
            _ => None,
        },
        Expr::Reference(r) => str_lit(&r.expr),
        Expr::Paren(p) => str_lit(&p.expr),
        Expr::Group(g) => str_lit(&g.expr),
        Expr::MethodCall(m)
            if m.args.is_empty()
                && matches!(
                    m.method.to_string().as_str(),
                    "to_string" | "to_owned" | "into" | "as_str"
                ) =>
        {
            str_lit(&m.receiver)
        }
        _ => None,
    }
}

/// The first string literal in a token stream, groups searched depth-first.
pub fn first_lit_in_tokens(tokens: proc_macro2::TokenStream) -> Option<String> {
    for t in tokens {
        match t {
            proc_macro2::TokenTree::Literal(l) => {
                // `Lit::new` classifies the token as `parse2::<LitStr>` would, without
                // building a token buffer and a parse stream for one token.
                if let Lit::Str(s) = Lit::new(l) {
                    return Some(s.value());
                }
            }
            proc_macro2::TokenTree::Group(g) => {
                if let Some(s) = first_lit_in_tokens(g.stream()) {
                    return Some(s);
                }
            }
            _ => {}
        }
    }
    None
}

/// An identifier for a synthetic function standing for a tool body: `prefix` and the tool
/// name with everything but ASCII letters, digits and `_` replaced (in both), so that it can
/// never collide with a method a call resolves to, and is always an identifier.
pub fn synthetic_ident(prefix: &str, tool: &str, span: Span) -> syn::Ident {
    let mut s = String::with_capacity(prefix.len() + tool.len() + 8);
    // The prefix too: a path (`crate::tools`) is no identifier.
    for c in prefix.chars() {
        s.push(if c.is_ascii_alphanumeric() || c == '_' {
            c
        } else {
            '_'
        });
    }
    if !s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        s.insert(0, '_');
    }
    s.push_str("__tool_");
    for c in tool.chars() {
        s.push(if c.is_ascii_alphanumeric() { c } else { '_' });
    }
    syn::Ident::new(&s, span)
}

/// What the styles' tests feed sources through.
/// `f` of an identifier's text, written on the stack when it is short (see
/// [`idemcheck_spec::ident::with_ident_text`]).
pub use idemcheck_spec::ident::with_ident_text;

#[cfg(test)]
pub(crate) mod test_support {
    use crate::collect::{FileJob, collect_source};
    use crate::facts::ToolFacts;
    use idemcheck_spec::config::Config;

    /// (name, function, style, judgement) of every tool of one `src/lib.rs`, sorted.
    pub(crate) fn rows(src: &str) -> Vec<(String, String, String, String)> {
        crate::analysis::inventory_rows(&[("src/lib.rs", src)])
    }

    /// (name, judgement) of every tool of one `src/lib.rs`, sorted.
    pub(crate) fn kinds(src: &str) -> Vec<(String, String)> {
        rows(src).into_iter().map(|(n, _, _, k)| (n, k)).collect()
    }

    /// [`rows`] under a configuration.
    pub(crate) fn rows_with(src: &str, config: Config) -> Vec<(String, String, String, String)> {
        let a = crate::analysis::analyze_sources(&[("src/lib.rs", src)], config);
        let mut v: Vec<_> = a
            .report
            .tools
            .iter()
            .map(|t| {
                (
                    t.name.clone(),
                    t.function.clone(),
                    t.style.clone(),
                    format!("{:?}", t.kind),
                )
            })
            .collect();
        v.sort();
        v
    }

    /// The collector's facts of the tools of one `src/lib.rs` (default configuration).
    pub(crate) fn tool_facts(src: &str) -> Vec<ToolFacts> {
        let job = FileJob {
            path: "src/lib.rs".into(),
            rel: "src/lib.rs".into(),
            krate: 0,
            module: Vec::new(),
            mod_rs: true,
            optional: false,
        };
        collect_source(&job, src, &Config::default()).0.tools
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segs(s: &str) -> Vec<String> {
        s.split("::").map(str::to_string).collect()
    }

    #[test]
    fn whose_tool_attribute_it_is() {
        let cx = AttrCx {
            router: false,
            uses_swiftide: false,
            uses_rmcp: false,
            tool_attributes: &[],
            configured_lasts: &[],
        };
        let mark = |path: &str, cx: &AttrCx<'_>| attr_mark(&segs(path), cx);
        assert_eq!(
            mark("idemcheck::side_effect", &cx),
            Some(AttrMark::Contract)
        );
        assert_eq!(
            mark("rig_derive::rig_tool", &cx),
            Some(AttrMark::Tool(ToolStyle::RigAttr))
        );
        assert_eq!(
            mark("mcp_tools_method", &cx),
            Some(AttrMark::Tool(ToolStyle::McpTools))
        );
        assert_eq!(
            mark("swiftide::tool", &cx),
            Some(AttrMark::Tool(ToolStyle::Swiftide))
        );
        assert_eq!(
            mark("rmcp::tool", &cx),
            Some(AttrMark::Tool(ToolStyle::Rmcp))
        );
        assert_eq!(mark("tool", &cx), Some(AttrMark::Tool(ToolStyle::ToolAttr)));
        assert_eq!(mark("tracing::instrument", &cx), None);
        let in_router = AttrCx { router: true, ..cx };
        assert_eq!(
            mark("tool", &in_router),
            Some(AttrMark::Tool(ToolStyle::Rmcp))
        );
        let swiftide_file = AttrCx {
            uses_swiftide: true,
            ..cx
        };
        assert_eq!(
            mark("tool", &swiftide_file),
            Some(AttrMark::Tool(ToolStyle::Swiftide))
        );
        // A configured `tool` marks tools, and other crates' `tool` then do not.
        let attrs = ["agent_sdk::tool".to_string(), "skill".to_string()];
        let lasts = configured::last_segments(&attrs);
        let configured = AttrCx {
            tool_attributes: &attrs,
            configured_lasts: &lasts,
            ..cx
        };
        assert_eq!(
            mark("agent_sdk::tool", &configured),
            Some(AttrMark::Tool(ToolStyle::Configured))
        );
        assert_eq!(mark("tracing::tool", &configured), None);
        assert_eq!(
            mark("skill", &configured),
            Some(AttrMark::ConfiguredFallback)
        );
    }

    #[test]
    fn snake_case_of_type_names() {
        assert_eq!(snake_case("ResetFile"), "reset_file");
        assert_eq!(snake_case("ExplainCode"), "explain_code");
        assert_eq!(snake_case("HTTPGet"), "http_get");
        assert_eq!(snake_case("Get2Fa"), "get2_fa");
        assert_eq!(snake_case("already_snake"), "already_snake");
    }

    #[test]
    fn string_literals_through_conversions() {
        let e: Expr = syn::parse_str(r#"&"x".to_string()"#).unwrap();
        assert_eq!(str_lit(&e).map(|p| p.0).as_deref(), Some("x"));
        let e: Expr = syn::parse_str("name").unwrap();
        assert!(str_lit(&e).is_none());
    }

    #[test]
    fn synthetic_idents_are_valid() {
        let id = synthetic_ident("call_tool", "git.status-v2", Span::call_site());
        assert_eq!(id.to_string(), "call_tool__tool_git_status_v2");
        // A macro's path as the prefix.
        let id = synthetic_ident("crate::tools", "status", Span::call_site());
        assert_eq!(id.to_string(), "crate__tools__tool_status");
    }
}
