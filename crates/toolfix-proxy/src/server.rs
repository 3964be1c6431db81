//! Accepting connections: each is served on its own task, each request independently;
//! what they share is the configuration, the upstream connection pool and the shadow
//! file.

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::net::TcpListener;

use crate::body::ProxyBody;
use crate::config::Config;
use crate::route;
use crate::shadow::Shadow;

/// What every request handler reads.
pub(crate) struct State {
    pub config: Config,
    pub client: Client<HttpConnector, ProxyBody>,
    pub shadow: Option<Shadow>,
}

impl State {
    fn new(config: Config) -> io::Result<State> {
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(config.limits.connect_timeout));
        connector.set_nodelay(true);
        let client = Client::builder(TokioExecutor::new()).build(connector);
        let shadow = config.shadow.as_deref().map(Shadow::open).transpose()?;
        Ok(State {
            config,
            client,
            shadow,
        })
    }
}

/// Serves the proxy on `listener` until the process ends. Fails only when the shadow
/// file cannot be opened; a connection that fails is dropped alone.
pub async fn serve(listener: TcpListener, config: Config) -> io::Result<()> {
    let state = Arc::new(State::new(config)?);
    loop {
        let (tcp, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of file descriptors, most likely: wait for some to be released.
                eprintln!("toolfix proxy: accept failed: {error}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = tcp.set_nodelay(true);
        let state = Arc::clone(&state);
        tokio::spawn(async move {
            let service = service_fn(move |request| {
                let state = Arc::clone(&state);
                async move { Ok::<_, Infallible>(route::handle(&state, request).await) }
            });
            // With a timer, hyper drops a client that takes over 30 s to send a head.
            let _ = http1::Builder::new()
                .timer(TokioTimer::new())
                .serve_connection(TokioIo::new(tcp), service)
                .await;
        });
    }
}

/// Binds `listen` and serves on a runtime of its own until Ctrl-C: the command's entry
/// point.
pub fn run(config: Config, listen: SocketAddr) -> io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let listener = TcpListener::bind(listen).await?;
        let address = listener.local_addr()?;
        eprintln!(
            "toolfix proxy: http://{address}/v1 -> {}{}",
            config.upstream,
            match config.shadow {
                Some(ref path) => format!(" (shadow: {})", path.display()),
                None => String::new(),
            }
        );
        // Ctrl-C ends the proxy cleanly, also inside the Python package's `toolfix`,
        // where the interpreter would otherwise wait on this thread for ever.
        tokio::select! {
            served = serve(listener, config) => served,
            _ = tokio::signal::ctrl_c() => Ok(()),
        }
    })
}
