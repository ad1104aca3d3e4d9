//! No lost update: concurrent read-modify-write clients with `If-Match`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::json;

use crate::support::{quiet, start};

const CLIENTS: usize = 8;
const WRITES: usize = 100;

#[test]
fn eight_clients_times_a_hundred_puts_lose_nothing() {
    let h = Arc::new(start(quiet()));
    let token = h.token("acme");
    let accepted = Arc::new(AtomicU64::new(0));
    let threads: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let (h, token, accepted) = (Arc::clone(&h), token.clone(), Arc::clone(&accepted));
            std::thread::spawn(move || {
                let mut seen: Option<String> = None;
                for i in 0..WRITES {
                    let key = format!("client-{c}/write-{i}.md");
                    loop {
                        let r = h.put(
                            &token,
                            "o/r",
                            seen.as_deref(),
                            &json!({&key: format!("{c}:{i}")}),
                        );
                        // 200: written. 412 and 428: someone else wrote
                        // first; both carry the current checksum, so the
                        // client retries at once without another GET.
                        seen = r.body["checksum"].as_str().map(str::to_owned);
                        match r.status {
                            200 => {
                                accepted.fetch_add(1, Ordering::SeqCst);
                                break;
                            }
                            412 | 428 => {}
                            other => panic!("unexpected {other}: {}", r.body),
                        }
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let accepted = accepted.load(Ordering::SeqCst);
    assert_eq!(accepted, (CLIENTS * WRITES) as u64);
    let full = h.repo(&token, "o/r");
    let entries = full.body["content"]["entries"].as_object().unwrap();
    assert_eq!(entries.len(), CLIENTS * WRITES);
    for c in 0..CLIENTS {
        for i in 0..WRITES {
            assert_eq!(
                entries[&format!("client-{c}/write-{i}.md")],
                json!(format!("{c}:{i}"))
            );
        }
    }
    assert_eq!(full.body["version"], json!(accepted));
}
