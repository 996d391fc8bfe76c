//! Requests the reducer queues for the worker. The reducer never talks to the worker:
//! views put [`Envelope`]s here, the app posts them after rendering and then
//! acknowledges them (`Action::Posted`), so the whole UI logic runs natively.

use pgolens_protocol::{DocId, Envelope, ReqId, Request};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outbox {
    /// Requests not yet posted, in order.
    pub queue: Vec<Envelope>,
    last: ReqId,
}

impl Outbox {
    /// Queues `request` about `doc`; returns its sequence number (the reply carries it).
    pub fn send(&mut self, doc: DocId, request: Request) -> ReqId {
        self.last = self.last.saturating_add(1);
        self.queue.push(Envelope { doc, req: self.last, request });
        self.last
    }

    /// Forgets the requests up to `upto`, posted; returns whether any were.
    pub fn posted(&mut self, upto: ReqId) -> bool {
        let before = self.queue.len();
        self.queue.retain(|e| e.req > upto);
        self.queue.len() != before
    }
}
