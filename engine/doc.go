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
//   - the task store (package taskstore; listtasks.go, idempotency.go):
//     the tasks in creation order, retention by count (TaskRetention), by
//     running tasks (MaxRunningTasks) and by content bytes
//     (TaskRetentionBytes), ListTasks paging and the messageId
//     idempotency map.
//   - the timeline player (player.go): plays a timeline's steps against the
//     clock, applies them to the stored task and hands the events to the
//     task's subscribers.
//   - the push queue (package pushqueue): the ordered queue of a task's
//     notifications and its drain goroutine; push.go keeps the task's
//     push configs; delivery itself is the Deliverer's job (package
//     server POSTs them).
//
// # Lock discipline
//
// Two kinds of mutex, never held together:
//
//   - Agent.mu guards the store and everything hanging off a task entry
//     but its push queue: the task, its subscribers, its player
//     generation, its push configs, the page tokens, the idempotency map
//     and the seeded random sources.
//   - Each task's push queue (pushqueue.Queue's mutex) guards that queue,
//     whether its drain goroutine runs, and whether the first delivery
//     was tried.
//
// Rules:
//
//   - Both are leaf locks: nothing else is locked while one is held, and
//     no callback supplied from outside runs under them except
//     Config.Record (the journal's own short lock, under Agent.mu) and the
//     non-blocking sends to subscriber channels.
//   - Behaviors' hooks never run under a lock: Decide hooks run on a
//     snapshot after Agent.mu is released, Plan hooks on the timeline
//     before it is played, and push filters (core.PushHooks) in the task's
//     drain goroutine, on one notification at a time.
//   - An event's notification is built under Agent.mu (the configs the
//     task holds then are copied into it) and queued after Agent.mu is
//     released, under the queue's own lock only.
//   - Push delivery (Deliverer.Deliver) runs in the queue's drain
//     goroutine without any lock; a task's notifications are delivered in
//     the order they were queued, and a hung webhook holds back only its
//     own task's later notifications.
//   - A player holds no lock while it sleeps; each step re-takes Agent.mu
//     and checks the task entry's generation, so a replaced or stopped
//     player's step is ignored.
//
// Every goroutine the engine starts is counted in Config.Players: players
// end when Config.Context ends; a push drain ends when its queue is empty,
// and no new one starts once Config.HostContext has ended (the host's
// Deliverer gives up on that context, so a drain never outlives it).
package engine
