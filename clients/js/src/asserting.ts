/** The Go testkit's assertions as methods of what serves a test's agents (a Mock, a Replay), over the journal it reads. */

import * as A from "./assertions.js";
import type { Entry } from "./journal.js";

/**
 * The assertions of assertions.ts as methods: each reads the journal of one
 * agent (`agent`; undefined: the default, or every agent of a Mock) through
 * the subclass's journalFor, and throws A2amockAssertionError with the
 * testkit's message when it fails.
 */
export abstract class JournalAssertions {
  /** The journal the assertions read for `agent`. */
  protected abstract journalFor(agent?: string): Promise<Entry[]>;
  /** The agent's card as a client reads it. */
  protected abstract cardFor(agent?: string): Promise<Record<string, any>>;
  /** The agent's name on the server (its journal entries' `agent`). */
  protected abstract serverName(agent?: string): string;

  /** Every task the client created ended terminal or was canceled by it. */
  async assertNoOrphans(agent?: string): Promise<void> {
    A.assertNoOrphans(await this.journalFor(agent));
  }

  /** The client sent at most n GetTask requests for the task. */
  async assertPolledAtMost(taskId: string, n: number, agent?: string): Promise<void> {
    A.assertPolledAtMost(await this.journalFor(agent), taskId, n);
  }

  /** The client's last GetTask came at most withinMs after the task was created. */
  async assertStoppedPollingWithin(taskId: string, withinMs: number, agent?: string): Promise<void> {
    A.assertStoppedPollingWithin(await this.journalFor(agent), taskId, withinMs);
  }

  /** The client canceled the task (a CancelTask the agent acknowledged). */
  async assertCanceled(taskId: string, agent?: string): Promise<void> {
    A.assertCanceled(await this.journalFor(agent), taskId);
  }

  /** The client sent no message to the task after it was dead. */
  async assertNoContinuationTo(taskId: string, agent?: string): Promise<void> {
    A.assertNoContinuationTo(await this.journalFor(agent), taskId);
  }

  /** No send carried a field its dialect does not define, which the agent skipped unread. */
  async assertNoIgnoredFields(agent?: string): Promise<void> {
    A.assertNoIgnoredFields(await this.journalFor(agent));
  }

  /** Every request to the agent used an interface its card declares (as served, unless given). */
  async assertUsedDeclaredInterface(agent?: string, card?: Record<string, any>): Promise<void> {
    A.assertUsedDeclaredInterface(await this.journalFor(agent), card ?? (await this.cardFor(agent)));
  }

  /** Every message answering a task waiting for the client (input-required, auth-required) named the task by its taskId. */
  async assertContinuationCarriesTaskID(agent?: string): Promise<void> {
    A.assertContinuationCarriesTaskID(await this.journalFor(agent));
  }

  /** Every v1.0 request carried A2A-Version: 1.0 (header or query parameter). */
  async assertSentVersionHeader(agent?: string): Promise<void> {
    A.assertSentVersionHeader(await this.journalFor(agent));
  }

  /** The client did not send ListTasks (or ListTaskPushNotificationConfigs) a pageToken again after the agent answered it with that token as nextPageToken. */
  async assertNoPageTokenLoop(agent?: string): Promise<void> {
    A.assertNoPageTokenLoop(await this.journalFor(agent));
  }

  /** A message resent after its first sending failed reused its messageId. */
  async assertRetryReusedMessageID(agent?: string): Promise<void> {
    A.assertRetryReusedMessageID(await this.journalFor(agent));
  }

  /**
   * After the agent's card changed (at journal seq changedAt: the last
   * entry's seq when the test changed the card) the client fetched the card
   * again before its next request to the agent.
   */
  async assertCardRefetchedOnChange(changedAt: number, agent?: string): Promise<void> {
    A.assertCardRefetchedOnChange(await this.journalFor(agent), this.serverName(agent), changedAt);
  }

  /** The client polled GetTask to the task's terminal state when its terminal push did not come. */
  async assertFellBackToPolling(taskId: string, agent?: string): Promise<void> {
    A.assertFellBackToPolling(await this.journalFor(agent), taskId);
  }

  /** The states the agent pushed for the task that the webhook accepted (2xx), in delivery order. */
  async pushedStates(taskId: string, agent?: string): Promise<string[]> {
    return A.pushedStates(await this.journalFor(agent), taskId);
  }

  /** The client fetched the agent's card, then its signing keys (JWKS), before its first request. */
  async assertCardSignatureChecked(agent?: string): Promise<void> {
    A.assertCardSignatureChecked(await this.journalFor(agent), this.serverName(agent));
  }

  /** The client sent the agent no request after it served a card whose signature must be refused. */
  async assertNoRequestAfterBadCardSignature(agent?: string): Promise<void> {
    A.assertNoRequestAfterBadCardSignature(await this.journalFor(agent), this.serverName(agent));
  }
}
