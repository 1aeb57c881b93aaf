//! A small W3C WebDriver client over HTTP (reqwest) for headless Chromium through Debian's
//! `chromedriver`: start the driver, open a session, navigate, find, type, click, read cookies
//! and take screenshots. A missing Chromium or driver is a failure with what to install.
#![allow(dead_code)] // each test binary uses a different part

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

/// The key W3C WebDriver names an element reference with.
const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

/// Where Debian puts Chromium and its driver (`apt-get install chromium chromium-driver`).
const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// A running chromedriver with one headless Chromium session; both end on drop.
pub struct Browser {
    driver: Child,
    base: String,
    session: String,
    http: reqwest::Client,
    _profile: tempfile::TempDir,
}

/// An element of the current page.
pub struct Element(String);

impl Browser {
    /// Starts chromedriver on a free port and a headless Chromium session. Panics, naming the
    /// packages to install, when either is missing.
    pub async fn start() -> Browser {
        for (path, package) in [(CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")] {
            assert!(
                Path::new(path).exists(),
                "{path} is missing: the browser test needs Debian's `{package}` \
                 (apt-get install -y chromium chromium-driver; .ci/run installs them)"
            );
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let base = format!("http://127.0.0.1:{port}");
        let http = reqwest::Client::new();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let ready = http.get(format!("{base}/status")).send().await;
            if let Ok(reply) = ready
                && reply
                    .json::<Value>()
                    .await
                    .is_ok_and(|v| v["value"]["ready"] == true)
            {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "chromedriver did not start within 20 s"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let profile = tempfile::tempdir().expect("a profile directory");
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=1280,1100",
                         format!("--user-data-dir={}", profile.path().display())]
            }
        }}});
        let mut browser = Browser {
            driver,
            base,
            session: String::new(),
            http,
            _profile: profile,
        };
        let created = browser
            .command("POST", "/session", Some(capabilities))
            .await;
        browser.session = created["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("chromedriver opened no session: {created}"))
            .to_string();
        browser
    }

    /// Sends one WebDriver command (path relative to the session unless it starts at
    /// `/session` itself) and returns its `value`; a WebDriver error panics with its message.
    async fn command(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = if self.session.is_empty() {
            format!("{}{path}", self.base)
        } else {
            format!("{}/session/{}{path}", self.base, self.session)
        };
        let request = match method {
            "GET" => self.http.get(&url),
            "DELETE" => self.http.delete(&url),
            _ => self
                .http
                .post(&url)
                .json(&body.unwrap_or_else(|| json!({}))),
        };
        let reply: Value = request
            .send()
            .await
            .unwrap_or_else(|e| panic!("{method} {url}: {e}"))
            .json()
            .await
            .unwrap_or_else(|e| panic!("{method} {url}: not JSON: {e}"));
        let value = reply["value"].clone();
        if let Some(error) = value.get("error") {
            panic!("{method} {path}: {error}: {}", value["message"]);
        }
        value
    }

    /// Ends the session (Chromium quits) and the driver.
    pub async fn quit(mut self) {
        self.command("DELETE", "", None).await;
        self.session.clear();
        tokio::task::spawn_blocking(move || drop(self))
            .await
            .expect("the driver stops");
    }

    pub async fn goto(&self, url: &str) {
        self.command("POST", "/url", Some(json!({"url": url})))
            .await;
    }

    pub async fn url(&self) -> String {
        self.command("GET", "/url", None)
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Waits (up to 10 s) until the page's URL satisfies `done`, e.g. the end of a redirect
    /// chain a click started; returns the URL.
    pub async fn wait_for_url(&self, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let url = self.url().await;
            if done(&url) {
                return url;
            }
            assert!(Instant::now() < deadline, "still at {url} after 10 s");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub async fn title(&self) -> String {
        self.command("GET", "/title", None)
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// The page's HTML as the browser holds it.
    pub async fn source(&self) -> String {
        self.command("GET", "/source", None)
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Every element matching a CSS selector.
    pub async fn find_all(&self, css: &str) -> Vec<Element> {
        let found = self
            .command(
                "POST",
                "/elements",
                Some(json!({"using": "css selector", "value": css})),
            )
            .await;
        found
            .as_array()
            .map(|list| {
                list.iter()
                    .filter_map(|e| e[ELEMENT_KEY].as_str().map(|id| Element(id.to_string())))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The one element matching a CSS selector; panics when there is none.
    pub async fn find(&self, css: &str) -> Element {
        self.find_all(css)
            .await
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("no element {css:?} on the page"))
    }

    /// The visible text of the page's body.
    pub async fn text(&self) -> String {
        let body = self.find("body").await;
        self.element_text(&body).await
    }

    pub async fn element_text(&self, element: &Element) -> String {
        self.command("GET", &format!("/element/{}/text", element.0), None)
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    pub async fn attribute(&self, element: &Element, name: &str) -> Option<String> {
        self.command(
            "GET",
            &format!("/element/{}/attribute/{name}", element.0),
            None,
        )
        .await
        .as_str()
        .map(str::to_string)
    }

    pub async fn click(&self, element: &Element) {
        self.command("POST", &format!("/element/{}/click", element.0), None)
            .await;
    }

    pub async fn type_into(&self, element: &Element, text: &str) {
        self.command(
            "POST",
            &format!("/element/{}/value", element.0),
            Some(json!({"text": text})),
        )
        .await;
    }

    /// The cookies of the current page, as WebDriver describes them (`name`, `value`,
    /// `httpOnly`, `secure`, `sameSite`, …).
    pub async fn cookies(&self) -> Vec<Value> {
        self.command("GET", "/cookie", None)
            .await
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Saves a PNG of the window to `path`.
    pub async fn screenshot(&self, path: &Path) {
        let encoded = self.command("GET", "/screenshot", None).await;
        let png = base64::engine::general_purpose::STANDARD
            .decode(encoded.as_str().unwrap_or_default())
            .expect("the screenshot is base64");
        assert!(png.starts_with(b"\x89PNG"), "the screenshot is a PNG");
        std::fs::write(path, png).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    }
}

impl Drop for Browser {
    /// Ends the session even when a test panicked, then lets chromedriver shut down (it closes
    /// Chromium on its way out; killed at once, it would leave Chromium running).
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let session = format!("/session/{}", self.session);
            self.blocking_request("DELETE", &session);
        }
        self.blocking_request("GET", "/shutdown");
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.driver.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

impl Browser {
    /// One request to the driver without the async runtime (for `Drop`); answers are ignored.
    fn blocking_request(&self, method: &str, path: &str) {
        use std::io::{Read, Write};
        let Some(address) = self.base.strip_prefix("http://") else {
            return;
        };
        let Ok(mut stream) = std::net::TcpStream::connect(address) else {
            return;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
        let request =
            format!("{method} {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
        if stream.write_all(request.as_bytes()).is_ok() {
            let _ = stream.read_to_end(&mut Vec::new());
        }
    }
}
