//! Redis commands, judged by Redis' own command table: `HSET`, `LPUSH`, `XADD`, `EXPIRE`
//! write; `HGET`, `LRANGE`, `XRANGE`, `TTL` read. A command's name is no English verb
//! (`hset`, `zadd`, `lpush` split into no word the verb vocabulary knows), so the shared
//! vocabulary cannot judge it: this table does, as an API model.
//!
//! Applied where the syntax names a command: the text handed to `redis::cmd("HSET")` (or a
//! pipeline's `.cmd("HSET")`), and the command methods of the client crates
//! (`con.hset(..)`, `con.set_ex(..)`, `con.json_set(..)`) in a file that uses one of them
//! ([`super::models::API_MODELS`]). Rows follow the command table's flags (`write` vs
//! `readonly`), with two departures a tool's retry cares about: `PUBLISH` writes (it
//! delivers a message again), and the `GEORADIUS` family reads (its write flag is for the
//! rarely used `STORE` option).

/// Commands that change data, the server or what subscribers receive.
const WRITES: &[&str] = &[
    "append",
    "bitfield",
    "bitop",
    "blmove",
    "blmpop",
    "blpop",
    "brpop",
    "brpoplpush",
    "bzmpop",
    "bzpopmax",
    "bzpopmin",
    "copy",
    "decr",
    "decrby",
    "del",
    "expire",
    "expireat",
    "flushall",
    "flushdb",
    "geoadd",
    "geosearchstore",
    "getdel",
    "getex",
    "getset",
    "hdel",
    "hexpire",
    "hexpireat",
    "hgetdel",
    "hgetex",
    "hincrby",
    "hincrbyfloat",
    "hmset",
    "hpersist",
    "hpexpire",
    "hpexpireat",
    "hset",
    "hsetex",
    "hsetnx",
    "incr",
    "incrby",
    "incrbyfloat",
    "linsert",
    "lmove",
    "lmpop",
    "lpop",
    "lpush",
    "lpushx",
    "lrem",
    "lset",
    "ltrim",
    "migrate",
    "move",
    "mset",
    "msetnx",
    "persist",
    "pexpire",
    "pexpireat",
    "pfadd",
    "pfmerge",
    "psetex",
    "publish",
    "rename",
    "renamenx",
    "restore",
    "rpop",
    "rpoplpush",
    "rpush",
    "rpushx",
    "sadd",
    "sdiffstore",
    "set",
    "setbit",
    "setex",
    "setnx",
    "setrange",
    "sinterstore",
    "smove",
    "sort",
    "spop",
    "spublish",
    "srem",
    "sunionstore",
    "swapdb",
    "unlink",
    "xack",
    "xackdel",
    "xadd",
    "xautoclaim",
    "xclaim",
    "xdel",
    "xdelex",
    "xgroup",
    "xreadgroup",
    "xsetid",
    "xtrim",
    "zadd",
    "zdiffstore",
    "zincrby",
    "zinterstore",
    "zmpop",
    "zpopmax",
    "zpopmin",
    "zrangestore",
    "zrem",
    "zremrangebylex",
    "zremrangebyrank",
    "zremrangebyscore",
    "zunionstore",
    "bgsave",
    "bgrewriteaof",
    "save",
    "shutdown",
    "replicaof",
    "slaveof",
    "failover",
    "vadd",
    "vrem",
    "vsetattr",
    // Modules: RedisJSON, RediSearch, RedisTimeSeries, RedisBloom.
    "json.set",
    "json.mset",
    "json.merge",
    "json.del",
    "json.forget",
    "json.clear",
    "json.toggle",
    "json.arrappend",
    "json.arrinsert",
    "json.arrpop",
    "json.arrtrim",
    "json.numincrby",
    "json.nummultby",
    "json.strappend",
    "ft.create",
    "ft.alter",
    "ft.dropindex",
    "ft.aliasadd",
    "ft.aliasdel",
    "ft.aliasupdate",
    "ft.sugadd",
    "ft.sugdel",
    "ft.synupdate",
    "ft.dictadd",
    "ft.dictdel",
    "ts.create",
    "ts.alter",
    "ts.add",
    "ts.madd",
    "ts.incrby",
    "ts.decrby",
    "ts.del",
    "ts.createrule",
    "ts.deleterule",
    "bf.add",
    "bf.madd",
    "bf.insert",
    "bf.reserve",
    "cf.add",
    "cf.addnx",
    "cf.insert",
    "cf.insertnx",
    "cf.del",
    "cf.reserve",
];

/// Commands that only read.
const READS: &[&str] = &[
    "bitcount",
    "bitfield_ro",
    "bitpos",
    "dbsize",
    "dump",
    "echo",
    "eval_ro",
    "evalsha_ro",
    "exists",
    "expiretime",
    "fcall_ro",
    "geodist",
    "geohash",
    "geopos",
    "georadius",
    "georadius_ro",
    "georadiusbymember",
    "georadiusbymember_ro",
    "geosearch",
    "get",
    "getbit",
    "getrange",
    "hexists",
    "hget",
    "hgetall",
    "hkeys",
    "hlen",
    "hmget",
    "hpttl",
    "hrandfield",
    "hscan",
    "hstrlen",
    "httl",
    "hvals",
    "info",
    "keys",
    "lastsave",
    "lcs",
    "lindex",
    "llen",
    "lpos",
    "lrange",
    "mget",
    "object",
    "pexpiretime",
    "pfcount",
    "ping",
    "pttl",
    "pubsub",
    "randomkey",
    "role",
    "scan",
    "scard",
    "sdiff",
    "sinter",
    "sintercard",
    "sismember",
    "smembers",
    "smismember",
    "sort_ro",
    "srandmember",
    "sscan",
    "strlen",
    "substr",
    "sunion",
    "time",
    "ttl",
    "type",
    "xinfo",
    "xlen",
    "xpending",
    "xrange",
    "xread",
    "xrevrange",
    "zcard",
    "zcount",
    "zdiff",
    "zinter",
    "zintercard",
    "zlexcount",
    "zmscore",
    "zrandmember",
    "zrange",
    "zrangebylex",
    "zrangebyscore",
    "zrank",
    "zrevrange",
    "zrevrangebylex",
    "zrevrangebyscore",
    "zrevrank",
    "zscan",
    "zscore",
    "zunion",
    "vcard",
    "vdim",
    "vemb",
    "vgetattr",
    "vinfo",
    "vlinks",
    "vrandmember",
    "vsim",
    "json.get",
    "json.mget",
    "json.type",
    "json.resp",
    "json.arrindex",
    "json.arrlen",
    "json.objkeys",
    "json.objlen",
    "json.strlen",
    "ft.search",
    "ft.aggregate",
    "ft.info",
    "ft._list",
    "ft.explain",
    "ft.profile",
    "ft.sugget",
    "ft.suglen",
    "ft.syndump",
    "ft.spellcheck",
    "ft.tagvals",
    "ft.dictdump",
    "ts.get",
    "ts.mget",
    "ts.range",
    "ts.revrange",
    "ts.mrange",
    "ts.mrevrange",
    "ts.info",
    "ts.queryindex",
    "bf.exists",
    "bf.mexists",
    "bf.info",
    "cf.exists",
    "cf.mexists",
    "cf.count",
    "cf.info",
];

/// Container commands, judged by their subcommand (`CONFIG SET` writes, `CONFIG GET`
/// reads): the container, its subcommands that write, those that read. A container whose
/// subcommand is not shown decides nothing.
const CONTAINERS: &[(&str, &[&str], &[&str])] = &[
    ("config", &["set", "rewrite", "resetstat"], &["get", "help"]),
    (
        "client",
        &["kill", "pause", "unpause", "unblock"],
        &["list", "info", "getname", "id", "help"],
    ),
    (
        "acl",
        &["setuser", "deluser", "save", "load"],
        &[
            "list", "users", "getuser", "whoami", "cat", "log", "genpass",
        ],
    ),
    ("script", &["flush", "load", "kill"], &["exists"]),
    (
        "function",
        &["load", "delete", "flush", "restore", "kill"],
        &["list", "dump", "stats"],
    ),
    (
        "memory",
        &["purge"],
        &["usage", "stats", "doctor", "malloc-stats"],
    ),
    ("slowlog", &["reset"], &["get", "len"]),
    (
        "latency",
        &["reset"],
        &["latest", "history", "doctor", "graph"],
    ),
    ("module", &["load", "loadex", "unload"], &["list"]),
    (
        "command",
        &[],
        &["count", "docs", "info", "list", "getkeys"],
    ),
];

/// What a Redis command does: `Some(true)` it writes, `Some(false)` it only reads, `None`
/// when the text names no command this table knows (or a container without its
/// subcommand). The text is a command as sent (`"HSET"`, `"json.set"`, `"CONFIG SET"`), in
/// any case; a command line (`"SET k v"`) is judged by its first word.
pub fn command(text: &str) -> Option<bool> {
    let mut words = text.split_whitespace();
    let first = words.next()?;
    if first.len() > 24
        || !first
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_')
    {
        return None;
    }
    let name = first.to_ascii_lowercase();
    if let Some((_, writes, reads)) = CONTAINERS.iter().find(|(c, _, _)| *c == name) {
        let sub = words.next()?.to_ascii_lowercase();
        return if writes.contains(&sub.as_str()) {
            Some(true)
        } else if reads.contains(&sub.as_str()) {
            Some(false)
        } else {
            None
        };
    }
    judge(&name)
}

/// A lower-case command name in the table.
fn judge(name: &str) -> Option<bool> {
    if WRITES.contains(&name) {
        Some(true)
    } else if READS.contains(&name) {
        Some(false)
    } else {
        None
    }
}

/// Methods of the client crates named like a generic method of a standard type
/// (`Vec::append`, `Cell::set`, `slice::sort`, `HashMap::get`): a Redis command only with
/// the key and a value (two arguments or more).
const TWO_ARGUMENTS: &[&str] = &["append", "set", "sort", "copy", "move", "rename", "restore"];

/// Commands that are no method of a client handed arguments (`SAVE`, `INFO`, `TIME` take
/// none, or are sent with `cmd`): a method of that name is some other type's
/// (`store.save(&doc)`), and so is a method named by one of them, or by a generic command,
/// before an underscore (`save_config`, `sort_by`, `type_name`).
const NOT_METHODS: &[&str] = &[
    "save",
    "bgsave",
    "bgrewriteaof",
    "shutdown",
    "failover",
    "time",
    "info",
    "echo",
    "ping",
    "role",
    "lastsave",
    "dbsize",
    "flushdb",
    "flushall",
    "object",
    "randomkey",
    "keys",
    "dump",
    "exists",
    "persist",
    "migrate",
];

/// What a command method of a Redis client crate does (`con.hset(key, field, value)`,
/// `con.set_ex(..)`, `con.json_arr_append(..)`, `pipe.zadd_multiple(..)`), handed `args`
/// arguments: the method's name is the command's, with its option spelled after an
/// underscore (`set_ex` → `SETEX`, `rpush_exists` → `RPUSH`) and module commands prefixed
/// (`json_set` → `JSON.SET`). `None` when it names no command, and for the names of generic
/// methods (`TWO_ARGUMENTS`) handed fewer than two arguments.
pub fn method(name: &str, args: usize) -> Option<bool> {
    if args == 0 || NOT_METHODS.contains(&name) {
        return None;
    }
    if TWO_ARGUMENTS.contains(&name) && args < 2 {
        return None;
    }
    for module in ["json", "ft", "ts", "bf", "cf"] {
        if let Some(rest) = name.strip_prefix(module).and_then(|r| r.strip_prefix('_')) {
            return judge(&format!("{module}.{}", rest.replace('_', "")));
        }
    }
    // The redis crate's spellings of commands whose name is no command.
    match name {
        "hincr" | "zincr" | "bit_and" | "bit_or" | "bit_xor" | "bit_not" | "zrembylex"
        | "zrembyscore" | "incr_by" | "decr_by" => return Some(true),
        _ => {}
    }
    if let Some(v) = judge(name) {
        return Some(v);
    }
    if !name.contains('_') {
        return None;
    }
    judge(&name.replace('_', "")).or_else(|| {
        let head = name.split('_').next()?;
        // `get_*`/`set_*` on their own are the generic accessors of any type.
        let generic = head.len() < 4 && !matches!(head, "del" | "ttl")
            || TWO_ARGUMENTS.contains(&head)
            || NOT_METHODS.contains(&head);
        if generic { None } else { judge(head) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_judged_by_the_command_table() {
        for w in [
            "HSET", "lpush", "XADD", "EXPIRE", "DEL", "JSON.SET", "ts.add", "PUBLISH",
        ] {
            assert_eq!(command(w), Some(true), "{w}");
        }
        for r in [
            "HGET",
            "lrange",
            "XRANGE",
            "TTL",
            "EXISTS",
            "JSON.GET",
            "FT.SEARCH",
            "GEORADIUS",
        ] {
            assert_eq!(command(r), Some(false), "{r}");
        }
        assert_eq!(command("SET k v"), Some(true));
        assert_eq!(command("CONFIG SET maxmemory 1gb"), Some(true));
        assert_eq!(command("CONFIG GET maxmemory"), Some(false));
        assert_eq!(command("CONFIG"), None);
        assert_eq!(command("Delete the branch"), None);
        assert_eq!(command("insert"), None);
        assert_eq!(command(""), None);
    }

    #[test]
    fn client_methods_are_judged_by_their_command() {
        assert_eq!(method("hset", 3), Some(true));
        assert_eq!(method("set_ex", 3), Some(true));
        assert_eq!(method("hset_multiple", 2), Some(true));
        assert_eq!(method("rpush_exists", 2), Some(true));
        assert_eq!(method("xgroup_create_mkstream", 3), Some(true));
        assert_eq!(method("json_arr_append", 3), Some(true));
        assert_eq!(method("json_get", 2), Some(false));
        assert_eq!(method("hgetall", 1), Some(false));
        assert_eq!(method("zrangebyscore_limit", 5), Some(false));
        assert_eq!(method("scan_match", 1), Some(false));
        assert_eq!(method("hincr", 3), Some(true));
        assert_eq!(method("expire_at", 2), Some(true));
        // Generic methods of standard types are no commands with one argument.
        assert_eq!(method("append", 1), None);
        assert_eq!(method("set", 1), None);
        assert_eq!(method("sort", 0), None);
        assert_eq!(method("set", 2), Some(true));
        assert_eq!(method("get_mut", 1), None);
        assert_eq!(method("set_name", 1), None);
        assert_eq!(method("len", 1), None);
        assert_eq!(method("flushdb", 0), None);
        assert_eq!(method("sort_by", 1), None);
        assert_eq!(method("save", 1), None);
        assert_eq!(method("save_config", 1), None);
        assert_eq!(method("keys", 1), None);
        assert_eq!(method("del", 1), Some(true));
    }

    #[test]
    fn the_table_holds_each_command_once() {
        let mut all: Vec<&str> = WRITES.iter().chain(READS).copied().collect();
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n, "a command is in both lists or twice in one");
    }
}
