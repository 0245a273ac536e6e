//! PowerShell cmdlets (`Verb-Noun`: `Stop-VM`, `Get-ChildItem`), judged by their verb: the
//! shared verb vocabulary ([`super::vocabulary`]) first overridden by [`CMDLET_VERBS`], the
//! approved PowerShell verbs whose meaning there differs from the vocabulary's or that it does
//! not hold. Applied to command lists and script texts a tool hands to a shell or a sidecar.

/// Approved PowerShell verbs and whether they write, where the shared vocabulary says
/// otherwise or nothing: `Export-*`/`Convert-*` write a file (an API's export returns data);
/// `ConvertTo-*`/`Out-*`/`Format-*` only shape output.
pub const CMDLET_VERBS: &[(&str, bool)] = &[
    ("new", true),
    ("checkpoint", true),
    ("mount", true),
    ("dismount", true),
    ("optimize", true),
    ("repair", true),
    ("connect", true),
    ("disconnect", true),
    ("resize", true),
    ("debug", true),
    ("export", true),
    ("convert", true),
    ("wait", false),
    ("trace", false),
    ("out", false),
    ("format", false),
    ("resolve", false),
    ("convertto", false),
    ("convertfrom", false),
];

/// A PowerShell cmdlet name (`Verb-Noun`, both capitalised: `Stop-VM`, `Get-ChildItem`),
/// judged by its verb: `Some(true)` when the verb writes, `Some(false)` when it reads, `None`
/// when the word is no cmdlet or its verb says neither.
pub fn cmdlet(word: &str) -> Option<bool> {
    // The list's first word may hold the whole command line (`"Set-VM -Name '{}'"`).
    let word = word.split_whitespace().next()?;
    let (verb, noun) = word.split_once('-')?;
    let shaped = |w: &str| {
        w.len() >= 2
            && w.starts_with(|c: char| c.is_ascii_uppercase())
            && w.chars().all(|c| c.is_ascii_alphanumeric())
    };
    if !shaped(verb) || !shaped(noun) {
        return None;
    }
    let verb = verb.to_ascii_lowercase();
    if verb == "new" && noun == "Object" {
        // `New-Object -ComObject Microsoft.Update.Session`: an object in the script's own
        // memory, made again on a retry.
        return Some(false);
    }
    if let Some((_, writes)) = CMDLET_VERBS.iter().find(|(v, _)| *v == verb) {
        return Some(*writes);
    }
    if crate::effects::verbs::is_write_verb(&verb) {
        Some(true)
    } else if crate::effects::verbs::is_read_verb(&verb) {
        Some(false)
    } else {
        None
    }
}

/// The first cmdlet that writes in a PowerShell script text (`"$s = New-PSSession -VMName
/// '{}'; Copy-Item -Path '{}' ..."`): a cmdlet counts only where it is run — followed by a
/// parameter (`-Path`) or after a pipe — so a header name in prose (`Set-Cookie`) is none.
pub fn script_write(text: &str) -> Option<&str> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    tokens.iter().enumerate().find_map(|(i, t)| {
        let t = t.trim_start_matches(['(', '$', ';', '{']);
        if cmdlet(t) != Some(true) {
            return None;
        }
        let param = tokens.get(i + 1).is_some_and(|n| {
            n.starts_with('-') && n[1..].starts_with(|c: char| c.is_ascii_alphabetic())
        });
        let piped = i > 0 && tokens[i - 1] == "|";
        (param || piped).then_some(t)
    })
}

/// Whether a PowerShell script only reads: it runs at least one cmdlet, every cmdlet it runs
/// reads (`Get-Service | Select-Object Name | ConvertTo-Json`), it calls no method named for
/// a write (`$p.Kill()`, `[IO.File]::WriteAllText(..)`) and writes no file (`Out-File`, `>`).
pub fn script_reads(script: &str) -> bool {
    if script.contains('>') || script.contains('…') {
        return false;
    }
    let mut cmdlets = 0;
    for t in script.split_whitespace() {
        let t = t.trim_start_matches(['(', '$', ';', '{', '@']);
        if let Some((_, call)) = t.split_once("::").or_else(|| t.split_once('.'))
            && let Some((method, _)) = call.split_once('(')
            && crate::effects::verbs::words(method)
                .first()
                .is_some_and(|w| crate::effects::verbs::is_write_verb(w))
        {
            return false;
        }
        if t.eq_ignore_ascii_case("Out-File") {
            return false;
        }
        match cmdlet(t) {
            Some(true) => return false,
            Some(false) => cmdlets += 1,
            None => {}
        }
    }
    cmdlets > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_reads_when_every_cmdlet_it_runs_reads() {
        for (script, want) in [
            (
                "Get-Service | Select-Object Name, Status | ConvertTo-Json",
                true,
            ),
            (
                "Get-WinEvent -LogName '{}' -MaxEvents {} {} | Select-Object Id | ConvertTo-Json",
                true,
            ),
            ("Get-Process | Stop-Process -Force", false),
            ("Get-ChildItem | Out-File x.txt", false),
            ("Get-Content a > b", false),
            ("(Get-Process -Id 4).Kill()", false),
            ("[System.IO.File]::WriteAllText('a', 'b')", false),
            (
                "$x = New-Object -ComObject Shell.Application; $x.Windows()",
                true,
            ),
            ("$s = New-Object -ComObject X; $s.Delete()", false),
            ("echo hello", false),
            ("Get-Item …", false),
        ] {
            assert_eq!(script_reads(script), want, "{script}");
        }
    }

    #[test]
    fn a_cmdlet_is_judged_by_its_verb() {
        for (w, want) in [
            ("Stop-VM", Some(true)),
            ("Set-VM -Name '{}'", Some(true)),
            ("New-VHD", Some(true)),
            ("New-Object", Some(false)),
            ("Export-VM", Some(true)),
            ("Get-VM", Some(false)),
            ("Get-VMHost -ComputerName x", Some(false)),
            ("ConvertTo-Json", Some(false)),
            ("Test-Path", Some(false)),
            ("get-vm", None),
            ("x-y", None),
            ("Frobnicate-Thing", None),
            ("--force", None),
        ] {
            assert_eq!(cmdlet(w), want, "{w}");
        }
        assert_eq!(
            crate::evidence::command_words(&[Some("Stop-VM".into())]).map(|(w, _)| w),
            Some(true)
        );
        assert_eq!(
            script_write("$s = New-PSSession -VMName '{}'; Copy-Item -Path '{}' -ToSession $s"),
            Some("New-PSSession")
        );
        assert_eq!(
            script_write(
                "$f = Get-Feature -Name '{}' | Select-Object -First 1; Add-Feature -Switch x"
            ),
            Some("Add-Feature")
        );
        assert_eq!(
            script_write("Get-VM -Name '{}' | ConvertTo-Json -Compress"),
            None
        );
        assert_eq!(script_write("the Set-Cookie header"), None);
    }

    #[test]
    fn each_cmdlet_verb_is_listed_once() {
        let mut verbs: Vec<&str> = CMDLET_VERBS.iter().map(|(v, _)| *v).collect();
        verbs.sort_unstable();
        let n = verbs.len();
        verbs.dedup();
        assert_eq!(verbs.len(), n);
    }
}
