//! What one proxy is told: where the upstream is, the profile salvage runs under, where
//! shadow lines go, and the limits. It is the only state requests share.

use std::path::PathBuf;
use std::time::Duration;

use hyper::Uri;
use hyper::http::uri::{Authority, PathAndQuery};
use toolfix::Profile;

/// The proxy's configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// The server the proxy stands in front of.
    pub upstream: Upstream,
    /// The profile salvage runs under (`strict` or `portable`).
    pub profile: Profile,
    /// Shadow mode: nothing is modified, and every reply where the server's calls and
    /// toolfix's disagree is appended to this file as a JSON line.
    pub shadow: Option<PathBuf>,
    /// Sizes and times past which a request or reply is refused.
    pub limits: Limits,
}

impl Config {
    /// A configuration for `upstream` under `strict`, repairing, with the default limits.
    pub fn new(upstream: Upstream) -> Config {
        Config {
            upstream,
            profile: Profile::Strict,
            shadow: None,
            limits: Limits::default(),
        }
    }
}

/// Sizes and times past which the proxy answers with an error instead of waiting or
/// buffering without bound.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Bytes of a chat-completions request body (it is read whole to see its tools).
    pub request_body: usize,
    /// Bytes of a non-streamed reply that is repaired (read whole to be parsed).
    pub response_body: usize,
    /// Bytes of a streamed reply that is repaired: the salvager keeps the text from the
    /// first possible call on, so a stream is bounded too.
    pub stream: usize,
    /// Bytes of one server-sent event.
    pub event: usize,
    /// Time to connect to the upstream.
    pub connect_timeout: Duration,
    /// Time from sending a request upstream to its response head.
    pub response_timeout: Duration,
    /// Time a repaired stream may go without a byte from the upstream.
    pub idle_timeout: Duration,
}

impl Default for Limits {
    /// Generous for a chat reply (models' context windows are far below these), tight
    /// enough that a runaway stream cannot exhaust memory.
    fn default() -> Limits {
        Limits {
            request_body: 32 << 20,
            response_body: 32 << 20,
            stream: 32 << 20,
            event: 4 << 20,
            connect_timeout: Duration::from_secs(10),
            response_timeout: Duration::from_secs(600),
            idle_timeout: Duration::from_secs(600),
        }
    }
}

/// The base URL an OpenAI client would be given for the server, such as
/// `http://localhost:11434/v1`.
#[derive(Clone, Debug)]
pub struct Upstream {
    authority: Authority,
    /// The base path without a trailing slash (`/v1`, or empty).
    base: String,
}

impl Upstream {
    /// Reads `url`: `http://HOST[:PORT][/BASE]`. `https` is refused: the proxy builds
    /// no TLS stack, and belongs beside the server it fronts.
    pub fn parse(url: &str) -> Result<Upstream, String> {
        let uri: Uri = url
            .parse()
            .map_err(|e| format!("--upstream {url:?} is not a URL: {e}"))?;
        match uri.scheme_str() {
            Some("http") => {}
            Some("https") => {
                return Err(format!(
                    "--upstream {url:?}: https is not supported; run the proxy beside the server and give its http address"
                ));
            }
            _ => return Err(format!("--upstream {url:?} must start with http://")),
        }
        let authority = uri
            .authority()
            .cloned()
            .ok_or_else(|| format!("--upstream {url:?} has no host"))?;
        if uri.query().is_some() {
            return Err(format!("--upstream {url:?} must not have a query"));
        }
        let base = uri.path().trim_end_matches('/').to_owned();
        Ok(Upstream { authority, base })
    }

    /// The upstream URI for a request the client sent to `path` (with its query).
    ///
    /// Clients are given the proxy's `/v1` where they were given the upstream's base: a
    /// path under `/v1` is moved under the base, any other path is sent as it is.
    pub(crate) fn uri_for(&self, path: Option<&PathAndQuery>) -> Result<Uri, String> {
        let path = path.map_or("/", PathAndQuery::as_str);
        let mapped = match path.strip_prefix("/v1") {
            Some(rest) if rest.is_empty() || rest.starts_with(['/', '?']) => {
                format!("{}{rest}", self.base)
            }
            _ => path.to_owned(),
        };
        let mapped = match mapped.starts_with('/') {
            true => mapped,
            false => format!("/{mapped}"),
        };
        Uri::builder()
            .scheme("http")
            .authority(self.authority.clone())
            .path_and_query(mapped)
            .build()
            .map_err(|e| format!("cannot build the upstream URI for {path:?}: {e}"))
    }
}

impl std::fmt::Display for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "http://{}{}", self.authority, self.base)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mapped(base: &str, path: &str) -> String {
        let upstream = Upstream::parse(base).unwrap();
        let path: PathAndQuery = path.parse().unwrap();
        upstream.uri_for(Some(&path)).unwrap().to_string()
    }

    #[test]
    fn v1_paths_move_under_the_base_and_others_go_as_they_are() {
        let ollama = "http://localhost:11434/v1";
        assert_eq!(
            mapped(ollama, "/v1/chat/completions"),
            "http://localhost:11434/v1/chat/completions"
        );
        assert_eq!(
            mapped(ollama, "/v1/models?x=1"),
            "http://localhost:11434/v1/models?x=1"
        );
        assert_eq!(
            mapped(ollama, "/api/tags"),
            "http://localhost:11434/api/tags"
        );
        assert_eq!(mapped(ollama, "/v1x"), "http://localhost:11434/v1x");
        assert_eq!(
            mapped("http://h:8000/openai/v1/", "/v1/chat/completions"),
            "http://h:8000/openai/v1/chat/completions"
        );
        assert_eq!(
            mapped("http://h:8000", "/v1/models"),
            "http://h:8000/models"
        );
    }

    #[test]
    fn only_plain_http_urls_are_upstreams() {
        assert!(Upstream::parse("https://api.example/v1").is_err());
        assert!(Upstream::parse("localhost:11434").is_err());
        assert!(Upstream::parse("http://h/v1?k=1").is_err());
    }
}
