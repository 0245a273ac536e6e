//! The effect classifier's vocabularies, one module per kind of evidence, as data with pure
//! functions over it: which query-language statements write ([`statement`]), which verbs of
//! external calls and tool names write ([`verbs`], its word lists in [`vocabulary`]), and which operations on state the server
//! keeps between calls write ([`state`]), which PowerShell cmdlets write ([`cmdlets`]), which Redis commands write ([`redis`]). The per-file pass applies them to the syntax it
//! visits; nothing here sees syntax trees.

pub mod cdp;
pub mod cmdlets;
pub mod lsp;
pub mod mcp;
pub mod models;
pub mod redis;
pub mod setup;
pub mod state;
pub mod statement;
pub mod verbs;
pub mod vocabulary;

/// One small source per shape of write (and of read), run through the whole pipeline: the
/// tool inventory must judge each tool as its comment says.
#[cfg(test)]
mod shapes {
    use idemcheck_spec::Judgement;
    use idemcheck_spec::config::Config;

    fn kinds(src: &str) -> Vec<(String, Judgement)> {
        let analysis = crate::analysis::analyze_sources(&[("src/lib.rs", src)], Config::default());
        analysis
            .report
            .tools
            .iter()
            .map(|t| (t.name.clone(), t.kind))
            .collect()
    }

    fn kind_of(all: &[(String, Judgement)], name: &str) -> Judgement {
        all.iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("tool {name} not found in {all:?}"))
            .1
    }

    const SERVER: &str = r#"
use rmcp::{tool, tool_router};
use std::sync::Mutex;

pub struct Db;
impl Db {
    pub async fn run_statement(&self, sql: &str) -> u64 { self.conn.execute(sql, ()).await }
}

pub trait Store { fn put_note(&self, n: String); }
pub struct SqlStore;
impl Store for SqlStore {
    fn put_note(&self, n: String) { self.conn.execute("INSERT INTO notes VALUES (?1)", [n]); }
}

pub struct Server { db: Db, notes: Mutex<Vec<String>>, store: std::sync::Arc<dyn Store>, client: Client }

#[tool_router]
impl Server {
    /// Statement assembled in a local, executed by a shared helper.
    #[tool(description = "Upsert a record")]
    async fn upsert_record(&self) -> String {
        let mut q = "UPSERT ".to_string();
        q.push_str("person MERGE $data");
        self.db.run_statement(&q).await;
        String::new()
    }

    /// The same helper with a SELECT reads.
    #[tool(description = "List records")]
    async fn list_records(&self) -> String {
        let q = format!("SELECT * FROM {}", "person");
        self.db.run_statement(&q).await;
        String::new()
    }

    /// State kept between calls.
    #[tool(description = "Remember a note")]
    async fn remember(&self, note: String) -> String {
        self.notes.lock().unwrap().push(note);
        String::new()
    }

    /// A trait object: every workspace impl of the method.
    #[tool(description = "Save a note")]
    async fn save_note(&self, note: String) -> String {
        self.store.put_note(note);
        String::new()
    }

    /// An SDK builder chain with a write verb.
    #[tool(description = "Open an issue")]
    async fn open_issue(&self) -> String {
        self.client.issues("o", "r").create("title").send().await;
        String::new()
    }

    /// A POST to a search endpoint reads.
    #[tool(description = "Search issues")]
    async fn search_issues(&self) -> String {
        self.client.post("/rest/api/2/search").send().await;
        String::new()
    }

    /// Nothing either way, and the name says delete: a write by its words.
    #[tool(description = "Delete the branch")]
    async fn delete_branch(&self, name: String) -> String {
        opaque(name)
    }

    /// Nothing either way, and the name says nothing: unknown.
    #[tool(description = "Weather")]
    async fn weather(&self) -> String {
        opaque(String::new())
    }
}
"#;

    #[test]
    fn each_shape_is_judged_by_its_code() {
        let all = kinds(SERVER);
        assert_eq!(kind_of(&all, "upsert_record"), Judgement::Write);
        assert_eq!(kind_of(&all, "list_records"), Judgement::Unknown);
        assert_eq!(kind_of(&all, "remember"), Judgement::Write);
        assert_eq!(kind_of(&all, "save_note"), Judgement::Write);
        assert_eq!(kind_of(&all, "open_issue"), Judgement::Write);
        assert_eq!(kind_of(&all, "search_issues"), Judgement::Read);
        assert_eq!(kind_of(&all, "delete_branch"), Judgement::Write);
        assert_eq!(kind_of(&all, "weather"), Judgement::Unknown);
    }

    #[test]
    fn bindings_of_a_match_or_if_let_on_kept_state_are_kept_state() {
        let src = r#"
use rmcp::{tool, tool_router};
use tokio::sync::Mutex;

pub struct Server { db: Mutex<Option<Session>>, note: String }

#[tool_router]
impl Server {
    #[tool(description = "Switch the namespace")]
    async fn use_namespace(&self, ns: String) -> String {
        let guard = self.db.lock().await;
        match &*guard {
            Some(db) => { db.use_ns(&ns).await; "ok".into() }
            None => "no connection".into(),
        }
    }

    #[tool(description = "Switch the database")]
    async fn use_database(&self, name: String) -> String {
        if let Some(db) = &*self.db.lock().await {
            db.use_db(&name).await;
        }
        "ok".into()
    }

    #[tool(description = "Echo the namespace")]
    async fn echo(&self, ns: String) -> String {
        let other = Session::new();
        match &other {
            Some(db) => db.use_ns(&ns).await,
            None => {}
        }
        ns
    }
}
"#;
        let all = kinds(src);
        // Choosing the namespace of a kept session converges: bookkeeping, read.
        assert_eq!(kind_of(&all, "use_namespace"), Judgement::Read);
        assert_eq!(kind_of(&all, "use_database"), Judgement::Read);
        // A local that is not kept state: its bindings are not either.
        assert_ne!(kind_of(&all, "echo"), Judgement::Write);
    }

    /// A setter awaited on a field is a request to another system (grammers'
    /// `self.raw.set_banned_rights(chat, user).await`), never kept state a retry converges
    /// on; the same setter called in memory is.
    #[test]
    fn an_awaited_setter_is_not_kept_state() {
        let src = r#"
use rmcp::{tool, tool_router};
pub struct Server { raw: grammers_client::Client, state: std::sync::Mutex<Mode> }
#[tool_router]
impl Server {
    #[tool(description = "Rights of a member")]
    async fn member_rights(&self, chat: String, user: String) -> String {
        self.raw.set_banned_rights(chat, user).await.unwrap();
        String::new()
    }
    #[tool(description = "The mode")]
    async fn mode(&self, m: String) -> String {
        self.state.lock().unwrap().set_mode(m);
        String::new()
    }
}
"#;
        let all = kinds(src);
        assert_ne!(kind_of(&all, "member_rights"), Judgement::Read);
        assert_eq!(kind_of(&all, "mode"), Judgement::Read);
    }

    #[test]
    fn a_method_on_a_field_of_a_typed_parameter_is_followed() {
        // `state.storage.invalidate(..)`: a one-word method, followed through the type of
        // `state` (a parameter) and of its field.
        let src = r#"
use rmcp::{tool, tool_router};
use std::sync::Arc;

pub struct AppState { pub storage: Arc<Storage> }
pub struct Storage { db: surrealdb::Surreal<Db> }

impl Storage {
    pub async fn invalidate(&self, id: &str) {
        self.db.query("UPDATE memory SET valid_until = time::now() WHERE id = $id").await;
    }
    pub async fn fetch(&self, id: &str) {
        self.db.query("SELECT * FROM memory WHERE id = $id").await;
    }
}

async fn do_invalidate(state: &Arc<AppState>, id: &str) {
    state.storage.invalidate(id).await;
}

async fn do_fetch(state: &Arc<AppState>, id: &str) {
    state.storage.fetch(id).await;
}

pub struct Server { state: Arc<AppState> }

#[tool_router]
impl Server {
    #[tool(description = "Invalidate a memory")]
    async fn invalidate(&self, id: String) -> String { do_invalidate(&self.state, &id).await; "ok".into() }

    #[tool(description = "Fetch a memory")]
    async fn fetch(&self, id: String) -> String { do_fetch(&self.state, &id).await; "ok".into() }
}
"#;
        let all = kinds(src);
        assert_eq!(kind_of(&all, "invalidate"), Judgement::Write);
        assert_ne!(kind_of(&all, "fetch"), Judgement::Write);
    }

    /// A server fronting a language server: `client.hover(params)` on a value of unknown
    /// type is the workspace's own LSP client method (followed, not taken for a browser
    /// action; a method calling its own name on another value is never itself), and LSP
    /// methods decide by the protocol: `textDocument/rename` computes edits, only
    /// `workspace/executeCommand` changes the workspace.
    #[test]
    fn language_server_requests_are_judged_by_the_protocol() {
        let src = r#"
use rmcp::{tool, tool_router};
pub struct LspClient { stdin: ChildStdin }
impl LspClient {
    async fn send_request(&mut self, method: &str, params: Value) -> Result<Value> {
        let request = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        self.write_message(&request).await?;
        Ok(Value::Null)
    }
    async fn write_message(&mut self, msg: &Value) -> Result<()> {
        self.stdin.write_all(msg.to_string().as_bytes()).await?;
        Ok(())
    }
    pub async fn hover(&mut self, params: Value) -> Result<Value> { self.send_request("textDocument/hover", params).await }
    pub async fn rename(&mut self, params: Value) -> Result<Value> { self.send_request("textDocument/rename", params).await }
    pub async fn run_command(&mut self, params: Value) -> Result<Value> { self.send_request("workspace/executeCommand", params).await }
}
pub struct Analyzer { lsp: Mutex<Option<LspClient>> }
impl Analyzer {
    pub async fn hover(&self, params: Value) -> Result<Value> {
        if let Some(client) = self.lsp.lock().await.as_mut() {
            return client.hover(params).await;
        }
        Ok(Value::Null)
    }
}
pub struct S { analyzer: Analyzer, lsp: LspClient }
#[tool_router]
impl S {
    #[tool(description = "Hover information for a symbol")]
    async fn get_hover(&self, p: Value) -> String { self.analyzer.hover(p).await; "ok".into() }
    #[tool(description = "The edits that rename a symbol")]
    async fn rename_edits(&mut self, p: Value) -> String { self.lsp.rename(p).await; "ok".into() }
    #[tool(description = "Run a server command")]
    async fn server_command(&mut self, p: Value) -> String { self.lsp.run_command(p).await; "ok".into() }
}
"#;
        let all = kinds(src);
        assert_eq!(kind_of(&all, "get_hover"), Judgement::Read);
        assert_eq!(kind_of(&all, "rename_edits"), Judgement::Read);
        assert_eq!(kind_of(&all, "server_command"), Judgement::Write);
    }

    /// `.get(&url).send()` on a client field of any name is an HTTP GET (a read); a name led
    /// by a verb that as often names a lookup (`resolve_problem`) does not outweigh it, while
    /// one that says write whatever follows (`create_problem`) still does.
    #[test]
    fn a_lookup_verb_does_not_outweigh_a_read() {
        let src = r#"
use rmcp::{tool, tool_router};
pub struct Oj { http: reqwest::Client, base: String }
impl Oj {
    pub async fn get_raw(&self, path: &str) -> Result<String> {
        let url = format!("{}{path}", self.base);
        let resp = self.http.get(&url).send().await?;
        Ok(resp.text().await?)
    }
}
#[tool_router]
impl Oj {
    #[tool(description = "Resolve a problem URL to its id")]
    async fn resolve_problem(&self, q: String) -> String { self.get_raw(&q).await.unwrap_or_default() }
    #[tool(description = "Create a problem")]
    async fn create_problem(&self, q: String) -> String { self.get_raw(&q).await.unwrap_or_default() }
}
"#;
        let all = kinds(src);
        assert_eq!(kind_of(&all, "resolve_problem"), Judgement::Read);
        assert_eq!(kind_of(&all, "create_problem"), Judgement::Write);
    }

    /// A value built in the call whose methods advance its own position six calls down (a
    /// recursive-descent parser: `expr` → `term` → `unary` → `primary` → `peek` →
    /// `skip_ws`) changes nothing kept between calls; a rate limiter's token count, reached
    /// through the buckets it keeps, is pacing, not the tool's effect.
    #[test]
    fn a_local_parser_and_a_rate_limiter_keep_no_state_that_matters() {
        let src = r#"
use rmcp::{tool, tool_router};
struct Parser<'a> { src: &'a [u8], pos: usize }
fn evaluate(src: &str) -> Result<f64, String> {
    let mut p = Parser { src: src.as_bytes(), pos: 0 };
    let v = p.expr()?;
    Ok(v)
}
impl<'a> Parser<'a> {
    fn skip_ws(&mut self) { while self.pos < self.src.len() { self.pos += 1; } }
    fn peek(&mut self) -> Option<u8> { self.skip_ws(); self.src.get(self.pos).copied() }
    fn primary(&mut self) -> Result<f64, String> { self.peek(); Ok(1.0) }
    fn unary(&mut self) -> Result<f64, String> { self.primary() }
    fn term(&mut self) -> Result<f64, String> { self.unary() }
    fn expr(&mut self) -> Result<f64, String> { self.term() }
}
struct Bucket { count: u32 }
impl Bucket { fn try_consume(&mut self) -> bool { self.count += 1; self.count < 10 } }
pub struct RateLimiter { buckets: HashMap<String, Bucket> }
impl RateLimiter {
    fn check_fetch(&mut self, host: &str) -> bool { self.buckets.entry(host.into()).or_insert(Bucket { count: 0 }).try_consume() }
}
pub struct S { limiter: Mutex<RateLimiter>, http: reqwest::Client }
#[tool_router]
impl S {
    #[tool(description = "Evaluate an arithmetic expression")]
    async fn math_eval(&self, e: String) -> String { evaluate(&e).map(|v| v.to_string()).unwrap_or_default() }
    #[tool(description = "Fetch a web page")]
    async fn web_fetch(&self, url: String) -> String {
        self.limiter.lock().unwrap().check_fetch(&url);
        self.http.get(&url).send().await.unwrap().text().await.unwrap()
    }
}
"#;
        let all = kinds(src);
        assert_ne!(kind_of(&all, "math_eval"), Judgement::Write);
        assert_eq!(kind_of(&all, "web_fetch"), Judgement::Read);
    }

    /// A trait's method called by its path on a unit struct's value (`let tool = MvTool;
    /// tools::Tool::execute(&tool, ..)`): that type's method, followed.
    #[test]
    fn a_trait_method_called_by_path_on_a_unit_struct_is_followed() {
        let src = r#"
use rmcp::{tool, tool_router};
pub trait Tool { async fn execute(&self, path: &str) -> Result<()>; }
pub struct MvTool;
impl Tool for MvTool {
    async fn execute(&self, path: &str) -> Result<()> { std::fs::rename(path, "moved")?; Ok(()) }
}
pub struct S;
#[tool_router]
impl S {
    #[tool(description = "The file operation")]
    async fn file_op(&self, path: String) -> String {
        let tool = crate::tools::MvTool;
        crate::tools::Tool::execute(&tool, &path).await;
        "ok".into()
    }
}
"#;
        let all = kinds(src);
        assert_eq!(kind_of(&all, "file_op"), Judgement::Write);
    }

    #[test]
    fn a_browser_script_that_acts_is_a_write() {
        let src = r#"
use rmcp::{tool, tool_router};

pub struct Browser { client: fantoccini::Client }

#[tool_router]
impl Browser {
    #[tool(description = "Scroll to an element")]
    async fn scroll_to(&self, selector: String) -> String {
        let script = format!("document.querySelector('{}').scrollIntoView()", selector);
        self.client.execute(&script, vec![]).await;
        "ok".into()
    }

    #[tool(description = "Read the title")]
    async fn title(&self) -> String {
        let script = "return document.title;";
        self.client.execute(script, vec![]).await;
        "ok".into()
    }
}
"#;
        let all = kinds(src);
        assert_eq!(kind_of(&all, "scroll_to"), Judgement::Write);
        assert_ne!(kind_of(&all, "title"), Judgement::Write);
    }

    /// Checks of values the code holds (`.is_empty(..)`, `.get_or_init(..)`) are not reads of
    /// the system: the tool's name still breaks the tie. So does a read of the system on the
    /// way (its name alone, not its description); bookkeeping reached rules the name out.
    #[test]
    fn value_checks_leave_the_tie_to_the_name() {
        let src = r#"
use rmcp::{tool, tool_router};
use std::sync::OnceLock;
static CONN: OnceLock<bridge::Conn> = OnceLock::new();

#[tool_router]
impl Server {
    #[tool(description = "Add a bookmark")]
    async fn add_bookmark(&self, label: String) -> String {
        if label.is_empty() {
            return "empty".into();
        }
        let conn = CONN.get_or_init(bridge::Conn::open);
        conn.dispatch(&label).await;
        "ok".into()
    }

    #[tool(description = "Create an emoji from a file")]
    async fn create_emoji_preview(&self, path: String) -> String {
        let bytes = std::fs::read(&path).unwrap();
        self.bridge.dispatch(&bytes).await;
        "ok".into()
    }

    #[tool(description = "Create an emoji from a file")]
    async fn create_emoji(&self, path: String) -> String {
        let bytes = std::fs::read(&path).unwrap();
        self.bridge.dispatch(&bytes).await;
        "ok".into()
    }

    #[tool(description = "Set the working directory")]
    async fn set_dir(&self, dir: String) -> String {
        if dir.is_empty() {
            return "empty".into();
        }
        self.state.lock().unwrap().dir = dir;
        "ok".into()
    }

    #[tool(description = "Count the bookmarks")]
    async fn bookmark_count(&self, label: String) -> String {
        if label.is_empty() {
            return "empty".into();
        }
        self.bridge.dispatch(&label).await;
        "ok".into()
    }
}
"#;
        let all = kinds(src);
        assert_eq!(kind_of(&all, "add_bookmark"), Judgement::Write);
        // A real read on the way, and the name says `create`: the write it is named for is
        // behind the opaque call. With a read verb in its name (`preview`): a read.
        assert_eq!(kind_of(&all, "create_emoji"), Judgement::Write);
        assert_eq!(kind_of(&all, "create_emoji_preview"), Judgement::Read);
        // Bookkeeping decides: converging kept state is not left to the name.
        assert_eq!(kind_of(&all, "set_dir"), Judgement::Read);
        // Value checks and a name that says nothing: the value check keeps it a read.
        assert_eq!(kind_of(&all, "bookmark_count"), Judgement::Read);
    }

    /// A browser driven over the Chrome DevTools Protocol by a client of its own: the CDP
    /// method a call hands over decides by the protocol's words (`Page.createIsolatedWorld`
    /// sets up the session), and a page script carried by a workspace method
    /// (`self.evaluate_main(..)`) by its DOM calls.
    #[test]
    fn cdp_methods_and_page_scripts_decide() {
        let src = r#"
use rmcp::{tool, tool_router};
pub struct Cdp { ws: Ws }
impl Cdp {
    pub async fn send_on(&self, session: &str, method: &str, params: Value) -> Result<Value> {
        self.ws.post(json!({"method": method, "session": session, "params": params})).await
    }
}
pub struct Page { client: Cdp, sid: String }
impl Page {
    pub async fn evaluate_main(&self, expression: &str) -> Result<Value> {
        self.client.send_on(&self.sid, "Page.createIsolatedWorld", json!({})).await?;
        self.client.send_on(&self.sid, "Runtime.evaluate", json!({"expression": expression})).await
    }
    pub async fn storage_set(&self, kind: &str, key: &str) -> Result<()> {
        self.evaluate_main(&format!("window.{kind}.setItem({},{})", key, key)).await?;
        Ok(())
    }
    pub async fn storage_get(&self, kind: &str, key: &str) -> Result<Value> {
        self.evaluate_main(&format!("window.{kind}.getItem({})", key)).await
    }
    pub async fn navigate(&self, url: &str) -> Result<Value> {
        self.client.send_on(&self.sid, "Page.navigate", json!({"url": url})).await
    }
}
pub struct S { page: Page }
#[tool_router]
impl S {
    #[tool(description = "Put an item into local storage")]
    async fn storage_put(&self, key: String) -> String {
        self.page.storage_set("localStorage", &key).await;
        "ok".into()
    }
    #[tool(description = "Read an item of local storage")]
    async fn storage_item(&self, key: String) -> String {
        self.page.storage_get("localStorage", &key).await;
        "ok".into()
    }
    #[tool(description = "Open a page")]
    async fn go_to(&self, url: String) -> String {
        self.page.navigate(&url).await;
        "ok".into()
    }
}
"#;
        let all = kinds(src);
        assert_eq!(kind_of(&all, "storage_put"), Judgement::Write);
        assert_ne!(kind_of(&all, "storage_item"), Judgement::Write);
        assert_eq!(kind_of(&all, "go_to"), Judgement::Write);
    }

    /// A function named for the cache it keeps (`write_genome_cache`) writes a memo a retry
    /// rewrites the same: bookkeeping. One named for emptying a cache is not.
    #[test]
    fn functions_named_for_their_cache_are_bookkeeping() {
        let src = r#"
use rmcp::{tool, tool_router};
fn write_genome_cache(url: &str, body: &str) {
    std::fs::create_dir_all("cache").unwrap();
    std::fs::write(format!("cache/{url}"), body).unwrap();
}
fn clear_genome_cache() {
    std::fs::remove_dir_all("cache").unwrap();
}
#[tool_router]
impl S {
    #[tool(description = "Get a design")]
    async fn design_tree(&self, url: String) -> String {
        let body = reqwest::get(&url).await.unwrap().text().await.unwrap();
        write_genome_cache(&url, &body);
        body
    }
    #[tool(description = "Forget every design fetched")]
    async fn forget_designs(&self) -> String {
        clear_genome_cache();
        "ok".into()
    }
}
"#;
        let all = kinds(src);
        assert_eq!(kind_of(&all, "design_tree"), Judgement::Read);
        assert_eq!(kind_of(&all, "forget_designs"), Judgement::Write);
    }

    /// rust-mcp-server's shape: a tool trait whose run method (`call_rmcp_tool`) takes
    /// `Self::RequestArgs`, a request type whose `build_cmd` builds the command and hands it
    /// back for a shared helper to run, and a response value built by `.into()` and filled
    /// in. The command decides each tool; filling in the response is no kept state.
    #[test]
    fn commands_built_and_handed_back_decide_through_the_request_type() {
        let src = r#"
use std::process::Command;
pub trait Tool {
    const NAME: &'static str;
    type RequestArgs;
    fn call_rmcp_tool(&self, request: Self::RequestArgs) -> Result<Response, E>;
}
pub struct Response { notes: Vec<String> }
impl Response {
    pub fn add_note(&mut self, n: String) { self.notes.push(n); }
}
fn execute_command(mut cmd: Command, name: &str) -> Result<Output, E> {
    Ok(cmd.output()?)
}
pub struct AddRequest { spec: String, toolchain: Option<String> }
impl AddRequest {
    pub fn build_cmd(&self) -> Result<Command, E> {
        let mut cmd = Command::new("cargo");
        if let Some(t) = &self.toolchain {
            cmd.arg(format!("+{t}"));
        }
        cmd.arg("add");
        cmd.arg(&self.spec);
        Ok(cmd)
    }
}
pub struct TreeRequest { toolchain: Option<String> }
impl TreeRequest {
    pub fn build_cmd(&self) -> Result<Command, E> {
        let mut cmd = Command::new("cargo");
        if let Some(t) = &self.toolchain {
            cmd.arg(format!("+{t}"));
        }
        cmd.arg("tree");
        Ok(cmd)
    }
}
pub struct CargoAddTool;
impl Tool for CargoAddTool {
    const NAME: &'static str = "cargo-add";
    type RequestArgs = AddRequest;
    fn call_rmcp_tool(&self, request: Self::RequestArgs) -> Result<Response, E> {
        execute_command(request.build_cmd()?, Self::NAME).map(Into::into)
    }
}
pub struct CargoTreeTool;
impl Tool for CargoTreeTool {
    const NAME: &'static str = "cargo-tree";
    type RequestArgs = TreeRequest;
    fn call_rmcp_tool(&self, request: Self::RequestArgs) -> Result<Response, E> {
        let output = execute_command(request.build_cmd()?, Self::NAME)?;
        let mut response: Response = output.into();
        response.add_note("slow".to_string());
        Ok(response)
    }
}
"#;
        let all = kinds(src);
        assert_eq!(kind_of(&all, "cargo-add"), Judgement::Write);
        assert_eq!(kind_of(&all, "cargo-tree"), Judgement::Read);
    }

    /// A method on what a workspace accessor returns (`self.client.issue().add_comment(..)`,
    /// `self.local.networks().join(id)`: backlog's and zerotier's SDK crates): the method of
    /// the type the accessor returns, whatever its name.
    #[test]
    fn methods_on_what_an_accessor_returns_are_followed() {
        let src = r#"
use rmcp::{tool, tool_router};
pub struct Client { http: reqwest::Client }
pub struct NetworkApi<'a> { c: &'a Client }
impl Client {
    pub fn networks(&self) -> NetworkApi<'_> { NetworkApi { c: self } }
}
impl NetworkApi<'_> {
    pub async fn join(&self, id: &str) -> Result<(), E> {
        self.c.http.post(format!("/network/{id}")).send().await?;
        Ok(())
    }
    pub async fn one(&self, id: &str) -> Result<String, E> {
        Ok(self.c.http.get(format!("/network/{id}")).send().await?.text().await?)
    }
}
pub struct S { local: Client }
#[tool_router]
impl S {
    #[tool(description = "A network")]
    async fn zt_enter(&self, id: String) -> String {
        self.local.networks().join(&id).await.unwrap();
        "ok".into()
    }
    #[tool(description = "A network")]
    async fn zt_one(&self, id: String) -> String {
        self.local.networks().one(&id).await.unwrap()
    }
}
"#;
        let all = kinds(src);
        assert_eq!(kind_of(&all, "zt_enter"), Judgement::Write);
        assert_eq!(kind_of(&all, "zt_one"), Judgement::Read);
    }

    /// A field or parameter typed by a trait object (`Arc<dyn ImageBackend>`, `&dyn Store`):
    /// a call reaches the workspace impls of that trait's method, whatever its name, and
    /// not their test doubles.
    #[test]
    fn calls_through_a_trait_object_reach_its_impls() {
        let src = r#"
use rmcp::{tool, tool_router};
use std::sync::Arc;
pub trait ImageBackend: Send + Sync {
    async fn generate(&self, prompt: &str) -> Result<String, E>;
}
pub struct Fal { http: reqwest::Client }
impl ImageBackend for Fal {
    async fn generate(&self, prompt: &str) -> Result<String, E> {
        Ok(self.http.post("https://fal.run/queue").body(prompt.to_string()).send().await?.text().await?)
    }
}
pub struct FakeBackend;
impl ImageBackend for FakeBackend {
    async fn generate(&self, prompt: &str) -> Result<String, E> { Ok(prompt.to_string()) }
}
pub trait Store { fn one(&self, key: &str) -> String; }
pub struct Disk;
impl Store for Disk {
    fn one(&self, key: &str) -> String { std::fs::read_to_string(key).unwrap() }
}
pub struct S { backend: Arc<dyn ImageBackend> }
#[tool_router]
impl S {
    #[tool(description = "A picture from a prompt")]
    async fn picture(&self, prompt: String) -> String {
        self.backend.generate(&prompt).await.unwrap()
    }
    #[tool(description = "A stored value")]
    async fn stored(&self, key: String) -> String {
        lookup(&Disk, &key)
    }
}
fn lookup(store: &dyn Store, key: &str) -> String { store.one(key) }
"#;
        let all = kinds(src);
        assert_eq!(kind_of(&all, "picture"), Judgement::Write);
        assert_eq!(kind_of(&all, "stored"), Judgement::Read);
    }

    /// A script sent as CDP `Runtime.evaluate`'s `expression` (`json!({"expression": js})`)
    /// is judged by its DOM calls.
    #[test]
    fn cdp_evaluate_expressions_are_judged_by_their_script() {
        let src = r#"
use rmcp::{tool, tool_router};
pub struct Cdp { ws: Ws }
impl Cdp {
    async fn cdp_command(&self, method: &str, params: Value) -> Result<Value, E> {
        self.ws.call(json!({"method": method, "params": params})).await
    }
    async fn click(&self, selector: &str) -> Result<Value, E> {
        let js = format!("document.querySelector('{}')?.click(); 'clicked'", selector);
        self.cdp_command("Runtime.evaluate", json!({"expression": js})).await
    }
    async fn title(&self) -> Result<Value, E> {
        self.cdp_command("Runtime.evaluate", json!({"expression": "document.title"})).await
    }
}
pub struct S { cdp: Cdp }
#[tool_router]
impl S {
    #[tool(description = "An element, pressed")]
    async fn element_press(&self, selector: String) -> String {
        self.cdp.click(&selector).await.unwrap().to_string()
    }
    #[tool(description = "The page's title")]
    async fn page_title(&self) -> String {
        self.cdp.title().await.unwrap().to_string()
    }
}
"#;
        let all = kinds(src);
        assert_eq!(kind_of(&all, "element_press"), Judgement::Write);
        assert_ne!(kind_of(&all, "page_title"), Judgement::Write);
    }

    /// Redis commands, by the command table: a client crate's command methods and the
    /// command handed to `redis::cmd(..)`; names that say neither (`bump`, `log_event`).
    #[test]
    fn redis_commands_are_judged_by_the_command_table() {
        let src = r#"
use redis::AsyncCommands;
use rmcp::{tool, tool_router};
pub struct Mem { client: redis::Client }
#[tool_router]
impl Mem {
    #[tool(description = "Bump a counter")]
    async fn bump(&self) -> String {
        let mut con = self.client.get_multiplexed_async_connection().await.unwrap();
        let n: u64 = con.incr("hits", 1).await.unwrap();
        n.to_string()
    }
    #[tool(description = "Append an event")]
    async fn log_event(&self, e: String) -> String {
        let mut con = self.client.get_multiplexed_async_connection().await.unwrap();
        let _: () = con.xadd("events", "*", &[("e", e)]).await.unwrap();
        String::new()
    }
    #[tool(description = "A job, queued")]
    async fn job(&self, job: String) -> String {
        let mut con = self.client.get_multiplexed_async_connection().await.unwrap();
        let _: () = redis::cmd("LPUSH").arg("jobs").arg(&job).query_async(&mut con).await.unwrap();
        String::new()
    }
    #[tool(description = "Jobs waiting")]
    async fn pending(&self) -> String {
        let mut con = self.client.get_multiplexed_async_connection().await.unwrap();
        let n: u64 = redis::cmd("LLEN").arg("jobs").query_async(&mut con).await.unwrap();
        n.to_string()
    }
    #[tool(description = "The team")]
    async fn team(&self, mut names: Vec<String>) -> String {
        let mut con = self.client.get_multiplexed_async_connection().await.unwrap();
        let m: Vec<String> = con.smembers("team").await.unwrap();
        names.sort();
        m.join(",")
    }
}
"#;
        let all = kinds(src);
        assert_eq!(kind_of(&all, "bump"), Judgement::Write);
        assert_eq!(kind_of(&all, "log_event"), Judgement::Write);
        assert_eq!(kind_of(&all, "job"), Judgement::Write);
        assert_eq!(kind_of(&all, "pending"), Judgement::Read);
        assert_eq!(kind_of(&all, "team"), Judgement::Read);
        // Without the client crate in use, the same method names are no commands.
        let all = kinds(
            &src.replace("use redis::AsyncCommands;", "")
                .replace("redis::cmd", "cmd"),
        );
        assert_ne!(kind_of(&all, "bump"), Judgement::Write);
    }

    /// probe-rs: a core halted or a flash erased (by the library's function path) changes
    /// the target; a register read does not.
    #[test]
    fn a_debug_probe_s_target_is_changed_by_halting_and_erasing() {
        let src = r#"
use probe_rs::{flashing, Session, MemoryInterface};
use rmcp::{tool, tool_router};
pub struct Dbg { session: tokio::sync::Mutex<Session> }
#[tool_router]
impl Dbg {
    #[tool(description = "Core A")]
    async fn core_a(&self) -> String {
        let mut session = self.session.lock().await;
        let mut core = session.core(0).unwrap();
        core.halt(std::time::Duration::from_millis(500)).unwrap();
        String::new()
    }
    #[tool(description = "The program counter")]
    async fn pc(&self) -> String {
        let mut session = self.session.lock().await;
        let mut core = session.core(0).unwrap();
        let v: u32 = core.read_core_reg(15u16).unwrap();
        v.to_string()
    }
    #[tool(description = "The chip")]
    async fn chip(&self) -> String {
        let mut session = self.session.lock().await;
        flashing::erase_all(&mut session, flashing::FlashProgress::empty()).unwrap();
        String::new()
    }
}
"#;
        let all = kinds(src);
        assert_eq!(kind_of(&all, "core_a"), Judgement::Write);
        assert_eq!(kind_of(&all, "pc"), Judgement::Read);
        assert_eq!(kind_of(&all, "chip"), Judgement::Write);
    }

    /// Extending a set kept between calls converges (a retry adds nothing new); extending
    /// a list accumulates.
    #[test]
    fn a_set_extended_converges_and_a_list_accumulates() {
        let src = r#"
use rmcp::{tool, tool_router};
use std::collections::BTreeSet;
use std::sync::Mutex;
pub struct Watch { pending: Mutex<BTreeSet<String>>, journal: Mutex<Vec<String>> }
#[tool_router]
impl Watch {
    #[tool(description = "Paths to look at")]
    async fn mark_paths(&self, paths: Vec<String>) -> String {
        self.pending.lock().unwrap().extend(paths);
        String::new()
    }
    #[tool(description = "Paths seen")]
    async fn note_paths(&self, paths: Vec<String>) -> String {
        self.journal.lock().unwrap().extend(paths);
        String::new()
    }
}
"#;
        let all = kinds(src);
        assert_ne!(kind_of(&all, "mark_paths"), Judgement::Write);
        assert_eq!(kind_of(&all, "note_paths"), Judgement::Write);
    }

    #[test]
    fn a_write_by_its_words_is_a_warning() {
        let analysis =
            crate::analysis::analyze_sources(&[("src/lib.rs", SERVER)], Config::default());
        let f = analysis
            .report
            .findings
            .iter()
            .find(|f| f.tool == "delete_branch" && f.code == idemcheck_spec::RuleCode::Idem001)
            .expect("IDEM001 for delete_branch");
        assert_eq!(f.severity, idemcheck_spec::Severity::Warning);
        assert!(f.message.contains("its name"), "{}", f.message);
        let strong = analysis
            .report
            .findings
            .iter()
            .find(|f| f.tool == "upsert_record" && f.code == idemcheck_spec::RuleCode::Idem001)
            .expect("IDEM001 for upsert_record");
        assert_eq!(strong.severity, idemcheck_spec::Severity::Error);
    }
}
