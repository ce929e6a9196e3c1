// Package engine is the transport-free core of a hosted fake agent: a
// canonical request (wire.Request, with the core.Exchange that carries
// the protocol behaviors' hooks) goes in, a result or a subscription to the
// task's events comes out. No net/http type appears in its API; the HTTP
// and gRPC bindings in package server are thin adapters over it.
//
// An Agent is made of parts with one job each:
//
//   - the planner: decide and plan. Package plan holds the pure functions
//     (HonestDecision, HonestPlan, the scripts' matching), tested without
//     an agent; planner.go reads the task a message names (a snapshot from
//     the store), calls them, then lets the behaviors' Decide and Plan
//     hooks change the result.
//   - the task store (store.go, listtasks.go, idempotency.go): the tasks in
//     creation order, retention by count (TaskRetention), by running tasks
//     (MaxRunningTasks) and by content bytes (TaskRetentionBytes),
//     ListTasks paging and the messageId idempotency map.
//   - the timeline player (player.go): plays a timeline's steps against the
//     clock, applies them to the stored task and hands the events to the
//     task's subscribers.
//   - the push queue (push.go): the push configs of a task and the ordered
//     queue of its notifications; delivery itself is the Deliverer's job
//     (package server POSTs them).
//
// # Lock discipline
//
// One mutex, Agent.mu, guards the store and everything hanging off a task
// entry: the task, its subscribers, its player generation, its push configs
// and push queue, the page tokens, the idempotency map and the seeded
// random sources. Rules:
//
//   - Agent.mu is a leaf lock: nothing else is locked while it is held, and
//     no callback supplied from outside runs under it except Config.Record
//     (the journal's own short lock) and the non-blocking sends to
//     subscriber channels.
//   - Behaviors' hooks never run under Agent.mu: Decide hooks run on a
//     snapshot after the store lock is released, Plan hooks on the
//     timeline before it is played, and push filters (core.PushHooks)
//     run in the player's goroutine after the step was applied and the
//     lock released; only the resulting enqueue takes the lock again.
//   - Push delivery (Deliverer.Deliver) runs in the queue's drain
//     goroutine without any lock; a task's notifications are delivered in
//     the order they were enqueued.
//   - A player holds no lock while it sleeps; each step re-takes Agent.mu
//     and checks the task entry's generation, so a replaced or stopped
//     player's step is ignored.
//
// Every goroutine the engine starts (players, push drains) is counted in
// Config.Players and ends when Config.Context ends.
package engine
