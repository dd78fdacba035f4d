//! What the commands' argument parsers share.

/// Command-line arguments grouped by flag: each `--flag` with the values up to the next
/// `--flag` (`go` and `train` take several values per flag).
pub fn flag_groups<'a>(args: &'a [&'a str]) -> Vec<(&'a str, &'a [&'a str])> {
    let mut groups = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let flag = args[i];
        i += 1;
        let start = i;
        while i < args.len() && !args[i].starts_with("--") {
            i += 1;
        }
        groups.push((flag, &args[start..i]));
    }
    groups
}

/// A usage error: the message, a hint, exit status 2.
pub fn usage_error(msg: &str) -> ! {
    eprintln!("kaname: {msg}");
    eprintln!("try: kaname --help");
    std::process::exit(2);
}

/// `--variant <name>` taken out of `args` (standard shogi without it).
pub fn take_variant<'a>(args: &[&'a str]) -> (engine::VariantId, Vec<&'a str>) {
    let Some(i) = args.iter().position(|&a| a == "--variant") else {
        return (engine::VariantId::Shogi, args.to_vec());
    };
    let Some(name) = args.get(i + 1) else { usage_error("--variant needs a name (shogi, minishogi)") };
    let variant = name.parse().unwrap_or_else(|e: engine::UnknownVariant| usage_error(&e.to_string()));
    let rest = args.iter().enumerate().filter(|&(j, _)| j != i && j != i + 1).map(|(_, &a)| a).collect();
    (variant, rest)
}
