//! One tool's proposal: key fields, the postcondition stub and the attribute, from its
//! signature, its inputs' types and the analysis' evidence.

use super::*;

/// The last identifier of a type, looking through references, `Option`, `Parameters`,
/// `Json`, `Box`.
pub(super) fn core_name(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Reference(r) => core_name(&r.elem),
        syn::Type::Paren(p) => core_name(&p.elem),
        syn::Type::Group(g) => core_name(&g.elem),
        syn::Type::Slice(_) | syn::Type::Array(_) => "Vec".into(),
        syn::Type::Path(p) => {
            let Some(seg) = p.path.segments.last() else {
                return String::new();
            };
            let name = seg.ident.to_string();
            if matches!(name.as_str(), "Option" | "Parameters" | "Json" | "Box")
                && let syn::PathArguments::AngleBracketed(a) = &seg.arguments
                && let Some(syn::GenericArgument::Type(t)) = a.args.first()
            {
                return core_name(t);
            }
            name
        }
        _ => String::new(),
    }
}

/// `X` of a `Self::X` type (also behind a reference).
fn self_assoc(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Reference(r) => self_assoc(&r.elem),
        syn::Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 2 => {
            (p.path.segments[0].ident == "Self").then(|| p.path.segments[1].ident.to_string())
        }
        _ => None,
    }
}

/// `Result<T, E>` (or an alias `X::Result<T>`): `T` and, when written, `E`.
fn result_types(sig: &syn::Signature) -> Option<(syn::Type, Option<String>)> {
    let syn::ReturnType::Type(_, ty) = &sig.output else {
        return None;
    };
    let syn::Type::Path(p) = &**ty else {
        return None;
    };
    let seg = p.path.segments.last()?;
    if !seg.ident.to_string().ends_with("Result") {
        return None;
    }
    let syn::PathArguments::AngleBracketed(a) = &seg.arguments else {
        return None;
    };
    let mut types = a.args.iter().filter_map(|g| match g {
        syn::GenericArgument::Type(t) => Some(t.clone()),
        _ => None,
    });
    let ok = types.next()?;
    let err = types.next().map(|e| type_text(&e));
    let path: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let err = err.or_else(|| {
        if path.iter().any(|s| s == "io") {
            Some("std::io::Error".into())
        } else if path.iter().any(|s| s == "anyhow") {
            Some("anyhow::Error".into())
        } else {
            None
        }
    });
    Some((ok, err))
}

/// The name of a parameter in the stub, and its pattern as written there.
fn stub_param(param: &idemcheck_spec::signature::Param, n: usize) -> (String, String) {
    match &param.pat {
        Some(syn::Pat::Ident(p)) => (p.ident.to_string(), p.ident.to_string()),
        Some(syn::Pat::TupleStruct(ts)) if ts.elems.len() == 1 => {
            let path = ts
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect::<Vec<_>>()
                .join("::");
            match ts.elems.first() {
                Some(syn::Pat::Ident(p)) => (p.ident.to_string(), format!("{path}({})", p.ident)),
                _ => (format!("arg{n}"), format!("arg{n}")),
            }
        }
        _ => (format!("arg{n}"), format!("arg{n}")),
    }
}

pub(super) fn propose(u: &Unguarded<'_>, file: &FileFacts, ws: &Workspace) -> Proposal {
    let rel = file.rel.clone();
    let mut p = Proposal {
        tool: u.tool.name.clone(),
        function: u.function.clone(),
        file: rel.clone(),
        line: u.tool.loc.line,
        writes: u.writes.clone(),
        key: keys::Choice {
            entries: Vec::new(),
            note: String::new(),
            review: true,
        },
        attribute: String::new(),
        verify_signature: String::new(),
        steps: Vec::new(),
        fix: Err(String::new()),
    };
    let _ = &u.codes;
    let style_reason = match u.tool.style {
        ToolStyle::Rmcp | ToolStyle::Configured | ToolStyle::McpTools => None,
        ToolStyle::RigTrait | ToolStyle::RmcpToolBase => Some(
            "a trait method keeps the trait's signature: move the write into a free function, put the contract on it, and call `<fn>::call(&ctx, ..)` from the trait method",
        ),
        ToolStyle::McpSdk => Some(
            "a rust-mcp-sdk tool is a struct: move the write into a free function, put the contract on it, and call `<fn>::call(&ctx, ..)` from `call_tool`",
        ),
        ToolStyle::RigAttr => Some(
            "`#[rig_tool]` rewrites the function: move the write into a free function, put the contract on it, and call `<fn>::call(&ctx, ..)` from the tool",
        ),
        ToolStyle::SideEffect => Some("the tool already has a contract"),
        ToolStyle::Swiftide => Some(
            "swiftide's `#[tool]` / `#[derive(Tool)]` generates the tool: move the write into a free function, put the contract on it, and call `<fn>::call(&ctx, ..)` from the tool",
        ),
        ToolStyle::AdkFunctionTool => Some(
            "a `FunctionTool` handler is a closure or function value: move the write into a free function, put the contract on it, and call `<fn>::call(&ctx, ..)` from the handler",
        ),
        ToolStyle::McpDispatch => Some(
            "a hand-written `tools/call` arm is no function: move the write into a free function, put the contract on it, and call `<fn>::call(&ctx, ..)` from the arm",
        ),
    };
    let index = ws
        .texts
        .iter()
        .position(|(path, _)| *path == file.path)
        .unwrap_or(0);
    let Some(loc) = locate(ws, index, u.tool.loc.line, u.tool.loc.column) else {
        p.fix = Err(style_reason
            .unwrap_or("the tool is not a function of this file")
            .to_string());
        p.key.note = "(no function to read the inputs from)".into();
        p.attribute = "#[side_effect(key = [..], verify = .., max_retries = 1)]".into();
        p.verify_signature = "(see the tool's inputs)".into();
        return p;
    };
    let sig = &loc.sig;
    let signature = ToolSignature::new(sig);
    let is_method = signature.has_receiver();
    // Key candidates.
    let inputs: Vec<&idemcheck_spec::signature::Param> = signature.inputs().collect();
    let single = signature.single_input().is_some();
    let mut candidates = Vec::new();
    let mut fallback = Vec::new();
    for param in &inputs {
        let Some(ty) = &param.ty else { continue };
        let bindings: Vec<String> = param.bindings.iter().map(|b| b.to_string()).collect();
        let Some(binding) = bindings.first() else {
            continue;
        };
        fallback.push(binding.clone());
        let tname = match self_assoc(ty).and_then(|a| loc.assoc.get(&a)) {
            Some(t) => core_name(t),
            None => core_name(ty),
        };
        let fields = if keys::classify(binding, &tname) == keys::Class::Excluded("a flag") {
            None
        } else {
            ws.struct_fields(&tname)
        };
        match fields {
            Some(fields) if bindings.len() == 1 => {
                for (name, fty) in fields {
                    let entry = if single {
                        name.clone()
                    } else {
                        format!("{binding}.{name}")
                    };
                    candidates.push(keys::Candidate {
                        entry,
                        class: keys::classify(&name, &core_name(&fty)),
                    });
                }
            }
            _ => {
                for b in &bindings {
                    candidates.push(keys::Candidate {
                        entry: b.clone(),
                        class: keys::classify(b, &tname),
                    });
                }
            }
        }
    }
    p.key = keys::choose(&candidates, &fallback);
    // The postcondition.
    let base = format!("verify_{}", sig.ident);
    let mut verify = base.clone();
    let mut n = 2;
    while loc.taken.contains(&verify) {
        verify = format!("{base}_{n}");
        n += 1;
    }
    let results = result_types(sig);
    let ok_ty = results
        .as_ref()
        .map(|(t, _)| type_text(t))
        .unwrap_or_else(|| "T".into());
    let err_ty = results.as_ref().and_then(|(_, e)| e.clone());
    let mut params_text = Vec::new();
    let mut used = Vec::new();
    for (i, param) in signature.params.iter().enumerate() {
        match param.role {
            ParamRole::Receiver => params_text.push("&self".to_string()),
            _ => {
                let Some(ty) = &param.ty else { continue };
                let (name, pat) = stub_param(param, i);
                let ty = match ty {
                    syn::Type::Reference(_) => type_text(ty),
                    _ => format!("&{}", type_text(ty)),
                };
                params_text.push(format!("{pat}: {ty}"));
                used.push(name);
            }
        }
    }
    let generics = &sig.generics;
    let gen_text = if generics.params.is_empty() {
        String::new()
    } else {
        fix::tokens_text(&generics.to_token_stream())
    };
    let where_text = generics
        .where_clause
        .as_ref()
        .map(|w| {
            w.predicates
                .iter()
                .map(|p| fix::tokens_text(&p.to_token_stream()))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let asyncness = if sig.asyncness.is_some() {
        "async "
    } else {
        ""
    };
    p.verify_signature = format!(
        "{asyncness}fn {verify}{gen_text}({}) -> Result<Option<{ok_ty}>, {}>{}",
        params_text.join(", "),
        err_ty.clone().unwrap_or_else(|| "E".into()),
        if where_text.is_empty() {
            String::new()
        } else {
            format!(" where {}", where_text.join(", "))
        }
    );
    // The attribute.
    let path = if loc.imported {
        "side_effect"
    } else {
        "idemcheck::side_effect"
    };
    let key_list = p.key.entries.join(", ");
    let indent = {
        let text = &ws.texts[index].1;
        let line_no = attr_line(&loc);
        let line = text.lines().nth(line_no - 1).unwrap_or("");
        line[..line.len() - line.trim_start().len()].to_string()
    };
    let one_line = format!("#[{path}(key = [{key_list}], verify = {verify}, max_retries = 1)]");
    p.attribute = if indent.len() + one_line.chars().count() <= 100 {
        one_line
    } else {
        format!(
            "#[{path}(\n    key = [{key_list}],\n    verify = {verify},\n    max_retries = 1\n)]"
        )
    };
    // Steps a person must take.
    let mut steps = Vec::new();
    if u.tool.claims_read_only {
        steps.push(format!(
            "`{}` declares `read_only_hint = true` but writes: drop the hint (the contract check refuses it on a write tool, IDEM007)",
            u.tool.name
        ));
    }
    steps.extend(prerequisites(
        ws,
        file,
        &loc,
        is_method,
        results.as_ref(),
        err_ty.as_deref(),
    ));
    p.steps = steps;
    // Whether --fix applies.
    p.fix = if let Some(why) = style_reason {
        Err(why.to_string())
    } else if loc.trait_impl {
        Err("a trait method keeps the trait's signature: move the write into a free function with the contract".into())
    } else if results.is_none() {
        Err("the tool must return `Result<T, E>` for a contract".into())
    } else if is_method && (sig.asyncness.is_none()) {
        Err("a guarded method must be `async fn`".into())
    } else if is_method
        && !matches!(sig.inputs.first(), Some(syn::FnArg::Receiver(r)) if matches!(r.kind, syn::ReceiverKind::Reference(_, _, None)))
    {
        Err("a guarded method must take `&self`".into())
    } else {
        let stub = fix::stub(&fix::StubSpec {
            tool: sig.ident.to_string(),
            name: verify.clone(),
            asyncness: sig.asyncness.is_some(),
            generics: gen_text,
            params: params_text,
            used,
            ok_ty,
            where_preds: where_text,
            indent: indent.clone(),
        });
        Ok(fix::Plan {
            path: ws.texts[index].0.clone(),
            attr_line: attr_line(&loc),
            end_line: loc.end_line,
            indent,
            attribute: p.attribute.clone(),
            stub,
            rustfmt_dir: ws.texts[index]
                .0
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default(),
            edition: edition_of(&ws.texts[index].0),
            in_impl: loc.self_ty.is_some(),
        })
    };
    p
}
