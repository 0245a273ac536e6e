//! TLS for the PostgreSQL store: rustls with the `ring` provider (no OpenSSL, no cmake), and
//! the `sslmode` / `sslrootcert` parameters of the connection string.
//!
//! tokio-postgres knows `sslmode=disable|prefer|require` only and no `sslrootcert`, so both
//! are taken out of the connection string here ([`split_tls_params`]) and the rest is
//! handed to tokio-postgres. The connector ([`MakeRustls`]) is a small hand-written
//! `MakeTlsConnect` over tokio-rustls: the tokio-postgres-rustls crate would add x509-cert
//! and its ASN.1 stack only for SCRAM channel binding, which this store does not offer
//! (SCRAM-SHA-256 still authenticates; `channel_binding=require` is refused by the server
//! handshake instead).
//!
//! Nothing here puts the connection string in an error: the messages name the parameter
//! and, for `sslmode`, its value — never the user, the password or the host.

use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_postgres::tls::{ChannelBinding, MakeTlsConnect, TlsConnect, TlsStream};

/// The `sslmode` values the store understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SslMode {
    /// No TLS (also what a connection string without `sslmode` means).
    Disable,
    /// TLS when the server offers it, plain otherwise; the certificate is not checked.
    Prefer,
    /// TLS or no connection; the certificate is not checked (encryption, no
    /// authentication of the server).
    Require,
    /// TLS, the server's certificate chain checked against the CA of `sslrootcert` and its
    /// name against the host connected to.
    VerifyFull,
}

impl SslMode {
    fn parse(value: &str) -> Result<SslMode, String> {
        match value {
            "disable" => Ok(SslMode::Disable),
            "prefer" => Ok(SslMode::Prefer),
            "require" => Ok(SslMode::Require),
            "verify-full" => Ok(SslMode::VerifyFull),
            "verify-ca" => Err(
                "sslmode=verify-ca is not supported: use sslmode=verify-full \
                 (checks the CA and the host name)"
                    .to_string(),
            ),
            other => Err(format!(
                "unknown sslmode `{other}` (expected disable, prefer, require or verify-full)"
            )),
        }
    }

    /// What tokio-postgres is told.
    pub(super) fn for_tokio_postgres(self) -> tokio_postgres::config::SslMode {
        use tokio_postgres::config::SslMode as Pg;
        match self {
            SslMode::Disable => Pg::Disable,
            SslMode::Prefer => Pg::Prefer,
            SslMode::Require | SslMode::VerifyFull => Pg::Require,
        }
    }
}

/// `sslmode` and `sslrootcert` as found in a connection string.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct TlsParams {
    /// `sslmode`, when given.
    pub(super) mode: Option<SslMode>,
    /// `sslrootcert`, when given.
    pub(super) root_cert: Option<PathBuf>,
}

/// Take `sslmode` and `sslrootcert` out of a connection string (URL or `key=value` form);
/// return the rest, for tokio-postgres, and the two values.
pub(super) fn split_tls_params(url: &str) -> Result<(String, TlsParams), String> {
    let mut params = TlsParams::default();
    let mut take = |key: &str, value: String| -> Result<bool, String> {
        match key {
            "sslmode" => params.mode = Some(SslMode::parse(&value)?),
            "sslrootcert" => params.root_cert = Some(PathBuf::from(value)),
            _ => return Ok(false),
        }
        Ok(true)
    };
    let rest = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        let Some((base, query)) = url.split_once('?') else {
            return Ok((url.to_string(), params));
        };
        let mut kept = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            if !take(key, percent_decode(key, value)?)? {
                kept.push(pair);
            }
        }
        if kept.is_empty() {
            base.to_string()
        } else {
            format!("{base}?{}", kept.join("&"))
        }
    } else {
        let mut rest = String::with_capacity(url.len());
        for (key, value, text) in key_values(url)? {
            if !take(key, value)? {
                rest.push_str(text);
                rest.push(' ');
            }
        }
        rest.trim_end().to_string()
    };
    Ok((rest, params))
}

/// Decode `%XX` in the value of URL parameter `key`.
fn percent_decode(key: &str, value: &str) -> Result<String, String> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("bad percent-encoding in the value of `{key}`"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("the value of `{key}` is not UTF-8"))
}

/// The `key = value` pairs of a libpq key-value connection string: key, unquoted value, and
/// the pair's own text.
fn key_values(text: &str) -> Result<Vec<(&str, String, &str)>, String> {
    let mut pairs = Vec::new();
    let mut chars = text.char_indices().peekable();
    loop {
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        let Some(&(start, _)) = chars.peek() else {
            return Ok(pairs);
        };
        let mut key_end = start;
        while let Some((i, c)) = chars.next_if(|(_, c)| *c != '=' && !c.is_whitespace()) {
            key_end = i + c.len_utf8();
        }
        let key = &text[start..key_end];
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        if chars.next_if(|(_, c)| *c == '=').is_none() {
            return Err(format!("connection string: `{key}` has no `=`"));
        }
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        let mut value = String::new();
        let mut end = chars.peek().map_or(text.len(), |(i, _)| *i);
        let quoted = chars.next_if(|(_, c)| *c == '\'').is_some();
        let mut closed = !quoted;
        while let Some((i, c)) = chars.peek().copied() {
            if !quoted && c.is_whitespace() {
                break;
            }
            chars.next();
            end = i + c.len_utf8();
            match c {
                '\\' => {
                    let (i, escaped) = chars
                        .next()
                        .ok_or_else(|| format!("connection string: `{key}` ends in `\\`"))?;
                    end = i + escaped.len_utf8();
                    value.push(escaped);
                }
                '\'' if quoted => {
                    closed = true;
                    break;
                }
                c => value.push(c),
            }
        }
        if !closed {
            return Err(format!(
                "connection string: the value of `{key}` has no closing quote"
            ));
        }
        pairs.push((key, value, &text[start..end]));
    }
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The rustls configuration for `mode`: `None` for [`SslMode::Disable`]. `root_cert` (PEM,
/// one or more certificates) is required by [`SslMode::VerifyFull`] and ignored otherwise.
pub(super) fn client_config(
    mode: SslMode,
    root_cert: Option<&Path>,
) -> Result<Option<Arc<ClientConfig>>, String> {
    let builder = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS setup: {e}"))?;
    let config = match mode {
        SslMode::Disable => return Ok(None),
        SslMode::Prefer | SslMode::Require => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(EncryptOnly(provider())))
            .with_no_client_auth(),
        SslMode::VerifyFull => {
            let path = root_cert.ok_or(
                "sslmode=verify-full needs the CA that signed the server's certificate: \
                 sslrootcert=PATH in the connection string or PostgresOptions::tls_root_certificate",
            )?;
            builder
                .with_root_certificates(root_store(path)?)
                .with_no_client_auth()
        }
    };
    Ok(Some(Arc::new(config)))
}

/// The certificates of the PEM file `path`.
fn root_store(path: &Path) -> Result<RootCertStore, String> {
    let what = |e: &dyn std::fmt::Display| format!("sslrootcert {}: {e}", path.display());
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(path).map_err(|e| what(&e))? {
        let cert = cert.map_err(|e| what(&e))?;
        roots.add(cert).map_err(|e| what(&e))?;
    }
    if roots.is_empty() {
        return Err(what(&"no certificate in the file (expected PEM)"));
    }
    Ok(roots)
}

/// `sslmode=require` / `prefer`: encrypt, accept any certificate (as libpq does), but still
/// check the handshake's signatures.
#[derive(Debug)]
struct EncryptOnly(Arc<CryptoProvider>);

impl ServerCertVerifier for EncryptOnly {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// The store's `MakeTlsConnect`: rustls, or nothing (`sslmode=disable`).
#[derive(Clone)]
pub(super) struct MakeRustls(pub(super) Option<Arc<ClientConfig>>);

impl<S> MakeTlsConnect<S> for MakeRustls
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = RustlsStream<S>;
    type TlsConnect = RustlsConnect;
    type Error = io::Error;

    /// tokio-postgres asks for a connector even under `sslmode=disable` (and then does not
    /// use it): only the handshake itself refuses when TLS is off.
    fn make_tls_connect(&mut self, domain: &str) -> Result<RustlsConnect, io::Error> {
        let config = self.0.clone();
        let name = ServerName::try_from(domain.to_string()).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("`{domain}` is not a valid TLS server name"),
            )
        })?;
        Ok(RustlsConnect { config, name })
    }
}

/// One TLS handshake to come.
pub(super) struct RustlsConnect {
    config: Option<Arc<ClientConfig>>,
    name: ServerName<'static>,
}

impl<S> TlsConnect<S> for RustlsConnect
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = RustlsStream<S>;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = io::Result<RustlsStream<S>>> + Send>>;

    fn connect(self, stream: S) -> Self::Future {
        Box::pin(async move {
            let config = self
                .config
                .ok_or_else(|| io::Error::other("TLS is off (sslmode=disable)"))?;
            let connector = tokio_rustls::TlsConnector::from(config);
            Ok(RustlsStream(connector.connect(self.name, stream).await?))
        })
    }
}

/// A TLS connection to the server.
pub(super) struct RustlsStream<S>(tokio_rustls::client::TlsStream<S>);

impl<S: AsyncRead + AsyncWrite + Unpin> TlsStream for RustlsStream<S> {
    fn channel_binding(&self) -> ChannelBinding {
        ChannelBinding::none()
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for RustlsStream<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_read(cx, buf)
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for RustlsStream<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().0).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_parameters_are_taken_out_of_both_forms() {
        let (rest, p) = split_tls_params(
            "postgres://u:p%40ss@db:5432/x?application_name=a&sslmode=verify-full&sslrootcert=%2Ftmp%2Fca%20dir%2Fca.pem",
        )
        .unwrap();
        assert_eq!(rest, "postgres://u:p%40ss@db:5432/x?application_name=a");
        assert_eq!(p.mode, Some(SslMode::VerifyFull));
        assert_eq!(p.root_cert, Some(PathBuf::from("/tmp/ca dir/ca.pem")));
        let (rest, p) = split_tls_params("postgres://u@db/x?sslmode=require").unwrap();
        assert_eq!(
            (rest.as_str(), p.mode),
            ("postgres://u@db/x", Some(SslMode::Require))
        );
        let (rest, p) = split_tls_params(
            "host=db user=u password='it\\'s x' sslmode = require sslrootcert='/a b/ca.pem'",
        )
        .unwrap();
        assert_eq!(rest, "host=db user=u password='it\\'s x'");
        assert_eq!(p.mode, Some(SslMode::Require));
        assert_eq!(p.root_cert, Some(PathBuf::from("/a b/ca.pem")));
        let (rest, p) = split_tls_params("postgres://u@db/x").unwrap();
        assert_eq!(
            (rest.as_str(), p),
            ("postgres://u@db/x", TlsParams::default())
        );
    }

    #[test]
    fn bad_tls_parameters_are_clear_errors_without_the_connection_string() {
        for (url, expected) in [
            (
                "postgres://u:hunter2@db/x?sslmode=verify-ca",
                "verify-ca is not supported",
            ),
            (
                "postgres://u:hunter2@db/x?sslmode=always",
                "unknown sslmode `always`",
            ),
            (
                "postgres://u:hunter2@db/x?sslrootcert=%zz",
                "bad percent-encoding",
            ),
            (
                "host=db password=hunter2 sslmode='require",
                "no closing quote",
            ),
            ("host=db password=hunter2 sslmode", "has no `=`"),
        ] {
            let e = split_tls_params(url).unwrap_err();
            assert!(e.contains(expected), "{url}: {e}");
            assert!(!e.contains("hunter2") && !e.contains("db"), "{url}: {e}");
        }
        let e = client_config(SslMode::VerifyFull, None).unwrap_err();
        assert!(e.contains("sslrootcert=PATH"), "{e}");
        let e = client_config(SslMode::VerifyFull, Some(Path::new("/no/such/ca.pem"))).unwrap_err();
        assert!(e.contains("/no/such/ca.pem"), "{e}");
        assert!(client_config(SslMode::Disable, None).unwrap().is_none());
        assert!(client_config(SslMode::Require, None).unwrap().is_some());
    }
}
