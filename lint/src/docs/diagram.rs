//! A tool's path as a small state diagram: declared → attempt → committed, the verify branch,
//! the retry edge with its cap, the unknown exit. One model, two renderings: Mermaid
//! (`stateDiagram-v2`, for Markdown) and an inline SVG drawn here by hand (for HTML; no
//! script, no network).

use idemcheck_spec::Judgement;

use super::ToolDoc;
use super::text::{duration, html};

/// What a state means, for its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// The initial pseudo-state.
    Start,
    /// An ordinary state.
    State,
    /// The postcondition read.
    Check,
    /// Completed.
    Good,
    /// Not completed.
    Bad,
    /// Unknown: a person decides; or a duplicate risk.
    Unknown,
}

impl NodeKind {
    fn class(self) -> &'static str {
        match self {
            NodeKind::Start => "k_start",
            NodeKind::State => "k_step",
            NodeKind::Check => "k_check",
            NodeKind::Good => "k_ok",
            NodeKind::Bad => "k_notdone",
            NodeKind::Unknown => "k_unknown",
        }
    }

    fn colours(self) -> (&'static str, &'static str) {
        match self {
            NodeKind::Start => ("#333333", "#333333"),
            NodeKind::State => ("#eef3fb", "#1f4e9c"),
            NodeKind::Check => ("#f3e8fd", "#6a1b9a"),
            NodeKind::Good => ("#e6f4ea", "#2e7d32"),
            NodeKind::Bad => ("#fdecea", "#c62828"),
            NodeKind::Unknown => ("#fff4e5", "#b35900"),
        }
    }
}

/// A state, placed on a grid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Identifier (also the Mermaid state id).
    pub id: &'static str,
    /// Lines of its label.
    pub label: Vec<String>,
    /// Meaning.
    pub kind: NodeKind,
    /// Grid column.
    pub col: u32,
    /// Grid row.
    pub row: u32,
}

/// A transition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    /// From state id.
    pub from: &'static str,
    /// To state id.
    pub to: &'static str,
    /// Label.
    pub label: String,
    /// Bend, in pixels, perpendicular to the straight line (0: straight).
    pub bend: i32,
}

/// A tool's state diagram.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagram {
    /// States.
    pub nodes: Vec<Node>,
    /// Transitions.
    pub edges: Vec<Edge>,
}

fn node(id: &'static str, label: &[&str], kind: NodeKind, col: u32, row: u32) -> Node {
    Node {
        id,
        label: label.iter().map(|s| s.to_string()).collect(),
        kind,
        col,
        row,
    }
}

fn edge(from: &'static str, to: &'static str, label: impl Into<String>, bend: i32) -> Edge {
    Edge {
        from,
        to,
        label: label.into(),
        bend,
    }
}

impl Diagram {
    /// The diagram of a documented tool.
    pub fn of(doc: &ToolDoc) -> Diagram {
        if doc.kind == Judgement::Unknown && !doc.has_contract {
            return Diagram {
                nodes: vec![
                    node("start", &[], NodeKind::Start, 0, 0),
                    node(
                        "call",
                        &["call", "no write, no read found"],
                        NodeKind::State,
                        0,
                        1,
                    ),
                    node("result", &["result"], NodeKind::Good, 0, 2),
                    node(
                        "lost",
                        &["timeout", "possibly done"],
                        NodeKind::Unknown,
                        1,
                        1,
                    ),
                ],
                edges: vec![
                    edge("start", "call", "", 0),
                    edge("call", "result", "answer", 0),
                    edge("call", "lost", "timeout", 0),
                ],
            };
        }
        if doc.kind == Judgement::Read {
            return Diagram {
                nodes: vec![
                    node("start", &[], NodeKind::Start, 0, 0),
                    node("read", &["read", "no state change"], NodeKind::State, 0, 1),
                    node("result", &["result"], NodeKind::Good, 0, 2),
                    node(
                        "again",
                        &["timeout", "safe to call again"],
                        NodeKind::Unknown,
                        1,
                        1,
                    ),
                ],
                edges: vec![
                    edge("start", "read", "", 0),
                    edge("read", "result", "answer", 0),
                    edge("read", "again", "timeout", 22),
                    edge("again", "read", "retry", 22),
                ],
            };
        }
        let c = &doc.contract;
        let guarded = doc.has_contract && c.key.is_some() && doc.verify.is_some();
        if !guarded {
            let mut missing = Vec::new();
            if c.key.is_none() {
                missing.push("no key");
            }
            if doc.verify.is_none() && c.no_postcondition {
                missing.push("no postcondition (verify = none)");
            } else if doc.verify.is_none() {
                missing.push("no verify");
            }
            if c.max_retries.is_none() {
                missing.push("no cap");
            }
            let what = missing.join(", ");
            let retry = match c.max_retries {
                _ if c.no_postcondition && c.key.is_some() && !c.server_dedup => {
                    "unknown: never run again; an operator settles it".to_string()
                }
                Some(0) => "caller retries: runs the write again".to_string(),
                _ if c.key.is_none() => "retry: a new operation, may duplicate".to_string(),
                _ => "retry without knowing if it landed".to_string(),
            };
            return Diagram {
                nodes: vec![
                    node("start", &[], NodeKind::Start, 1, 0),
                    node(
                        "attempt",
                        &[
                            if doc.has_contract && c.no_postcondition && c.key.is_some() {
                                "write, keyed, cannot be read back"
                            } else if doc.has_contract {
                                "write, contract incomplete"
                            } else {
                                "write, unguarded"
                            },
                            &what,
                        ],
                        NodeKind::State,
                        1,
                        1,
                    ),
                    node(
                        "committed",
                        &["effect happened", "caller sees success"],
                        NodeKind::Good,
                        0,
                        2,
                    ),
                    node(
                        "lost",
                        &["timeout", "did it happen? unknown"],
                        NodeKind::Unknown,
                        2,
                        2,
                    ),
                ],
                edges: vec![
                    edge("start", "attempt", "", 0),
                    edge("attempt", "committed", "success", 0),
                    edge("attempt", "lost", "timeout", 0),
                    edge("lost", "attempt", retry, 40),
                ],
            };
        }
        let verify = doc
            .verify
            .as_ref()
            .map(|v| v.path.clone())
            .unwrap_or_default();
        let attempt_label = match c.timeout_ms {
            Some(t) => format!("timeout {}", duration(t)),
            None => "no timeout declared".to_string(),
        };
        let check_label = match c.settle_ms {
            Some(s) => format!("settle {}, then {verify}", duration(s)),
            None => verify.clone(),
        };
        let mut nodes = vec![
            node("start", &[], NodeKind::Start, 1, 0),
            node(
                "declared",
                &["DECLARED", "key claimed in the ledger"],
                NodeKind::State,
                1,
                1,
            ),
            Node {
                id: "attempt",
                label: vec!["attempt".into(), attempt_label],
                kind: NodeKind::State,
                col: 1,
                row: 2,
            },
            node(
                "failed",
                &["NOT COMPLETED", "definite failure"],
                NodeKind::Bad,
                2,
                2,
            ),
            node(
                "committed",
                &["COMMITTED", "completed"],
                NodeKind::Good,
                0,
                3,
            ),
            Node {
                id: "verify",
                label: vec!["postcondition".into(), check_label],
                kind: NodeKind::Check,
                col: 1,
                row: 3,
            },
            node(
                "unknown",
                &["UNKNOWN", "a person decides"],
                NodeKind::Unknown,
                2,
                3,
            ),
        ];
        let mut edges = vec![
            edge("start", "declared", "", 0),
            edge("declared", "attempt", "no record: execute", 0),
            edge("declared", "committed", "committed before: replay", 40),
            edge("attempt", "committed", "success", 0),
            edge("attempt", "failed", "definite error", 0),
            edge("attempt", "verify", "timeout / ambiguous", -28),
            edge("verify", "committed", "done", 0),
            edge("verify", "unknown", "cannot tell", 0),
        ];
        let cap = c.max_retries.unwrap_or(0);
        if cap > 0 {
            edges.push(edge(
                "verify",
                "attempt",
                format!("not done: retry ≤ {cap}, same key"),
                -28,
            ));
        }
        if c.settle_ms.is_some() {
            nodes.push(node(
                "released",
                &["NOT COMPLETED", "key released"],
                NodeKind::Bad,
                1,
                4,
            ));
            edges.push(edge("verify", "released", "not done at the cap", 0));
        } else {
            edges.push(edge("verify", "unknown", "not done at the cap", 30));
        }
        Diagram { nodes, edges }
    }

    fn node(&self, id: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == id)
    }

    /// Mermaid `stateDiagram-v2` source (without the code fence).
    pub fn mermaid(&self) -> String {
        let mut out = String::from("stateDiagram-v2\n    direction TB\n");
        for n in self.nodes.iter().filter(|n| n.kind != NodeKind::Start) {
            out.push_str(&format!(
                "    state \"{}\" as {}\n",
                mermaid_text(&n.label.join(", ")),
                n.id
            ));
        }
        let id = |s: &str| match self.node(s).map(|n| n.kind) {
            Some(NodeKind::Start) => "[*]".to_string(),
            _ => s.to_string(),
        };
        for e in &self.edges {
            if e.label.is_empty() {
                out.push_str(&format!("    {} --> {}\n", id(e.from), id(e.to)));
            } else {
                out.push_str(&format!(
                    "    {} --> {} : {}\n",
                    id(e.from),
                    id(e.to),
                    mermaid_text(&e.label)
                ));
            }
        }
        for kind in [
            NodeKind::State,
            NodeKind::Check,
            NodeKind::Good,
            NodeKind::Bad,
            NodeKind::Unknown,
        ] {
            let ids: Vec<&str> = self
                .nodes
                .iter()
                .filter(|n| n.kind == kind)
                .map(|n| n.id)
                .collect();
            if ids.is_empty() {
                continue;
            }
            let (fill, stroke) = kind.colours();
            out.push_str(&format!(
                "    classDef {} fill:{fill},stroke:{stroke},color:#111111\n",
                kind.class()
            ));
            out.push_str(&format!("    class {} {}\n", ids.join(","), kind.class()));
        }
        out
    }

    /// An inline SVG (`<svg>` element), labelled for screen readers with `title`; `id` makes
    /// its internal ids unique in a page.
    pub fn svg(&self, title: &str, id: &str) -> String {
        const W: f64 = 200.0;
        const H: f64 = 46.0;
        const COL: f64 = 250.0;
        const ROW: f64 = 104.0;
        const PAD: f64 = 24.0;
        let cols = self.nodes.iter().map(|n| n.col).max().unwrap_or(0) + 1;
        let rows = self.nodes.iter().map(|n| n.row).max().unwrap_or(0) + 1;
        let width = f64::from(cols) * COL + PAD;
        let height = f64::from(rows) * ROW + PAD;
        let centre = |n: &Node| {
            (
                PAD / 2.0 + f64::from(n.col) * COL + COL / 2.0,
                PAD / 2.0 + f64::from(n.row) * ROW + ROW / 2.0,
            )
        };
        let is_start = |n: &Node| n.kind == NodeKind::Start;
        // The point where a ray from a node's centre towards (tx, ty) leaves the node.
        let exit = |n: &Node, tx: f64, ty: f64| -> (f64, f64) {
            let (cx, cy) = centre(n);
            let (dx, dy) = (tx - cx, ty - cy);
            let len = (dx * dx + dy * dy).sqrt().max(1e-9);
            if is_start(n) {
                return (cx + dx / len * 8.0, cy + dy / len * 8.0);
            }
            let tx_ = if dx.abs() < 1e-9 {
                f64::INFINITY
            } else {
                (W / 2.0) / dx.abs()
            };
            let ty_ = if dy.abs() < 1e-9 {
                f64::INFINITY
            } else {
                (H / 2.0) / dy.abs()
            };
            let t = tx_.min(ty_);
            (cx + dx * t, cy + dy * t)
        };
        let mut s = String::new();
        s.push_str(&format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"diagram\" role=\"img\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" font-family=\"system-ui, sans-serif\">\n<title>{}</title>\n",
            html(title)
        ));
        s.push_str(&format!("<defs><marker id=\"arrow-{id}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#444444\"/></marker></defs>\n"));
        let mut labels = String::new();
        for e in &self.edges {
            let (Some(a), Some(b)) = (self.node(e.from), self.node(e.to)) else {
                continue;
            };
            let (ax, ay) = centre(a);
            if e.from == e.to {
                // A loop on the node's right side.
                let (x0, y0) = (ax + W / 2.0, ay - 10.0);
                let (x1, y1) = (ax + W / 2.0, ay + 10.0);
                s.push_str(&format!(
                    "<path class=\"edge\" d=\"M {x0:.1} {y0:.1} C {:.1} {:.1}, {:.1} {:.1}, {x1:.1} {y1:.1}\" fill=\"none\" stroke=\"#444444\" stroke-width=\"1.3\" marker-end=\"url(#arrow-{id})\"/>\n",
                    x0 + 40.0,
                    y0 - 22.0,
                    x1 + 40.0,
                    y1 + 22.0
                ));
                push_label(&mut labels, &e.label, x0 + 10.0, ay + 36.0, "start");
                continue;
            }
            let (bx, by) = centre(b);
            let (mx, my) = ((ax + bx) / 2.0, (ay + by) / 2.0);
            let (dx, dy) = (bx - ax, by - ay);
            let len = (dx * dx + dy * dy).sqrt().max(1e-9);
            let (px, py) = (-dy / len, dx / len);
            let bend = f64::from(e.bend);
            // Quadratic control point; for straight edges it lies on the line.
            let (qx, qy) = (mx + px * bend * 2.0, my + py * bend * 2.0);
            let (sx, sy) = exit(a, qx, qy);
            let (tx, ty) = exit(b, qx, qy);
            if e.bend == 0 {
                s.push_str(&format!(
                    "<line class=\"edge\" x1=\"{sx:.1}\" y1=\"{sy:.1}\" x2=\"{tx:.1}\" y2=\"{ty:.1}\" stroke=\"#444444\" stroke-width=\"1.3\" marker-end=\"url(#arrow-{id})\"/>\n"
                ));
            } else {
                s.push_str(&format!(
                    "<path class=\"edge\" d=\"M {sx:.1} {sy:.1} Q {qx:.1} {qy:.1} {tx:.1} {ty:.1}\" fill=\"none\" stroke=\"#444444\" stroke-width=\"1.3\" marker-end=\"url(#arrow-{id})\"/>\n"
                ));
            }
            if !e.label.is_empty() {
                // The curve's midpoint.
                let (lx, ly) = (
                    0.25 * sx + 0.5 * qx + 0.25 * tx,
                    0.25 * sy + 0.5 * qy + 0.25 * ty,
                );
                // A bent edge's label goes on the outer side of its bulge.
                let bulge_x = qx - mx;
                let anchor = if e.bend == 0 || bulge_x.abs() < 1.0 {
                    "middle"
                } else if bulge_x > 0.0 {
                    "start"
                } else {
                    "end"
                };
                let lx = match anchor {
                    "end" => lx - 4.0,
                    "start" => lx + 4.0,
                    _ => lx,
                };
                push_label(&mut labels, &e.label, lx, ly, anchor);
            }
        }
        for n in &self.nodes {
            let (cx, cy) = centre(n);
            if is_start(n) {
                s.push_str(&format!(
                    "<circle class=\"node k_start\" cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"8\" fill=\"#333333\"/>\n"
                ));
                continue;
            }
            let (fill, stroke) = n.kind.colours();
            s.push_str(&format!(
                "<g class=\"node {}\"><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{W}\" height=\"{H}\" rx=\"9\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"1.5\"/>",
                n.kind.class(),
                cx - W / 2.0,
                cy - H / 2.0
            ));
            let lines = n.label.len() as f64;
            for (i, line) in n.label.iter().enumerate() {
                let y = cy + (i as f64 - (lines - 1.0) / 2.0) * 15.0 + 4.0;
                let weight = if i == 0 { " font-weight=\"600\"" } else { "" };
                s.push_str(&format!(
                    "<text x=\"{cx:.1}\" y=\"{y:.1}\" text-anchor=\"middle\" font-size=\"12\" fill=\"#111111\"{weight}>{}</text>",
                    html(&fit(line, 30))
                ));
            }
            s.push_str("</g>\n");
        }
        s.push_str(&labels);
        s.push_str("</svg>");
        s
    }
}

/// Truncate a label to `max` characters.
fn fit(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut t: String = text.chars().take(max - 1).collect();
        t.push('…');
        t
    }
}

fn push_label(out: &mut String, label: &str, x: f64, y: f64, anchor: &str) {
    let label = fit(label, 40);
    let w = label.chars().count() as f64 * 6.1 + 8.0;
    let rx = match anchor {
        "end" => x - w + 4.0,
        "start" => x - 4.0,
        _ => x - w / 2.0,
    };
    out.push_str(&format!(
        "<g class=\"label\"><rect x=\"{rx:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"16\" rx=\"3\" fill=\"#ffffff\" fill-opacity=\"0.9\"/><text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\" font-size=\"11\" fill=\"#333333\">{}</text></g>\n",
        y - 11.0,
        y + 1.0,
        html(&label)
    ));
}

/// Text Mermaid accepts in a state name or a transition label.
fn mermaid_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            ':' => out.push_str(" -"),
            '"' | '`' => {}
            ';' => out.push(','),
            '#' | '{' | '}' | '<' | '>' | '[' | ']' => out.push(' '),
            c => out.push(c),
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mermaid_text_drops_what_breaks_the_grammar() {
        assert_eq!(
            mermaid_text("timeout: call `again`; #1 {x}"),
            "timeout - call again, 1 x"
        );
    }

    #[test]
    fn labels_fit() {
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("abc", 4), "abc");
    }
}
