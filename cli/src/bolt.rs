//! The BOLT commands: fdata from a perf.data, a pre-aggregated profile or an fdata
//! (perf2bolt, perf2bolt --pa), YAML re-written as LLVM writes it, and merges
//! (merge-fdata).

use std::io::{self, Write};

use pgolens::formats::bolt::{fdata, yaml};
use pgolens::formats::perf::perf2bolt::{self, binary::Binary};
use pgolens::formats::perf::PerfData;
use pgolens::Format;

use crate::{io_error, map};

/// Writes `bytes` to `out` (a file) or to stdout.
pub fn emit(out: Option<&str>, bytes: &[u8]) -> Result<(), String> {
    match out {
        Some(path) => std::fs::write(path, bytes).map_err(|e| format!("{path}: {e}")),
        None => {
            let mut stdout = io::stdout().lock();
            match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
                other => other.map_err(io_error),
            }
        }
    }
}

/// `export FILE --to fdata [--binary ELF] [--ba]`: what perf2bolt writes for a
/// perf.data (`-p FILE`) or a pre-aggregated profile (`--pa -p FILE`), or an fdata
/// re-written as perf2bolt writes fdata.
pub fn export_fdata(path: &str, elf: Option<&str>, basic: bool) -> Result<(), String> {
    let bytes = map(path)?;
    let input = pgolens::open(&bytes).map_err(|e| format!("{path}: {e}"))?;
    let format = input.detect().map_err(|e| format!("{path}: {e}"))?.format;
    let mut out = Vec::new();
    if format == Format::BoltFdata {
        let profile = fdata::decode(&input.data).map_err(|e| format!("{path}: {e}"))?;
        fdata::write(&profile, &mut out);
        return emit(None, &out);
    }
    let elf = elf.ok_or("--to fdata needs --binary ELF (the profiled binary)")?;
    let elf_bytes = map(elf)?;
    let binary = Binary::parse(&elf_bytes).map_err(|e| format!("{elf}: {e}"))?;
    let profile = match format {
        Format::BoltPreagg => perf2bolt::aggregate_preagg(&input.data, &binary, basic),
        Format::PerfData => {
            let perf = PerfData::parse(&input.data).map_err(|e| format!("{path}: {e}"))?;
            let name = std::path::Path::new(elf).file_name().map(|n| n.as_encoded_bytes()).unwrap_or(elf.as_bytes());
            if basic {
                perf2bolt::aggregate_basic(&perf, &binary, name)
            } else {
                perf2bolt::aggregate(&perf, &binary, name)
            }
        }
        other => return Err(format!("{path}: a {other} cannot become fdata (perf.data, pre-aggregated or fdata)")),
    }
    .map_err(|e| format!("{path}: {e}"))?;
    fdata::write(&profile.to_fdata_model(), &mut out);
    emit(None, &out)
}

/// `export FILE --to yaml`: a BOLT YAML profile as LLVM's writer writes it (wrapped
/// at column 70 when the input was, as merge-fdata's output is).
pub fn export_yaml(path: &str) -> Result<(), String> {
    let bytes = map(path)?;
    let input = pgolens::open(&bytes).map_err(|e| format!("{path}: {e}"))?;
    let format = input.detect().map_err(|e| format!("{path}: {e}"))?.format;
    if format != Format::BoltYaml {
        return Err(format!(
            "{path}: a {format} cannot become YAML here (YAML from fdata needs BOLT's block hashes of the binary)"
        ));
    }
    let profile = yaml::decode(&input.data).map_err(|e| format!("{path}: {e}"))?;
    warn_unknown_keys(path, &profile);
    emit(None, &yaml::write(&profile, profile.wrap_column()))
}

/// LLVM's reader warns about keys it does not know and goes on; so do we.
fn warn_unknown_keys(path: &str, profile: &yaml::Profile<'_>) {
    for k in &profile.unknown_keys {
        eprintln!("{path}:{}:{}: warning: unknown key '{}'", k.line, k.column, String::from_utf8_lossy(&k.key));
    }
}

/// `merge A B... [-o OUT]`: merge-fdata. All inputs fdata, or all YAML.
pub fn merge(args: &[String]) -> Result<(), String> {
    let mut inputs = Vec::new();
    let mut output = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "-o" => output = Some(rest.next().ok_or("-o needs a file")?.as_str()),
            _ if !arg.starts_with('-') => inputs.push(arg.as_str()),
            _ => return Err(crate::USAGE.to_string()),
        }
    }
    if inputs.is_empty() {
        return Err(crate::USAGE.to_string());
    }
    let files = inputs.iter().map(|p| map(p)).collect::<Result<Vec<_>, _>>()?;
    // merge-fdata's test: a YAML profile starts with `---`.
    let yaml = files.first().is_some_and(|f| f.starts_with(b"---\n"));
    if let Some(i) = files.iter().position(|f| f.starts_with(b"---\n") != yaml) {
        return Err(format!("{}: cannot mix YAML and fdata profiles", inputs.get(i).unwrap_or(&"")));
    }
    let mut out = Vec::new();
    if yaml {
        let profiles = files
            .iter()
            .zip(&inputs)
            .map(|(f, path)| {
                let p = yaml::decode(f).map_err(|e| format!("{path}: {e}"))?;
                warn_unknown_keys(path, &p);
                Ok(p)
            })
            .collect::<Result<Vec<_>, String>>()?;
        let merged = yaml::merge(&profiles).map_err(|e| e.to_string())?;
        eprintln!("pgolens: data for {} unique objects merged", merged.functions.len());
        return emit(output, &yaml::write(&merged, yaml::MERGE_FDATA_WRAP));
    }
    let profiles = files
        .iter()
        .zip(&inputs)
        .map(|(f, path)| fdata::decode(f).map_err(|e| format!("{path}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let merged = fdata::merge(&profiles).map_err(|e| match e {
        fdata::MergeError::MixedModes { input, .. } | fdata::MergeError::NegativeCount { input, .. } => {
            format!("{}: {e}", inputs.get(input).unwrap_or(&""))
        }
    })?;
    fdata::write(&merged, &mut out);
    eprintln!("pgolens: profile from {} files merged", inputs.len());
    emit(output, &out)
}
