/** Base class of every error the a2amock client throws. */
export class A2amockError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Neither A2AMOCK_URL, A2AMOCK_BIN nor an a2amock binary on PATH. */
export class BinaryNotFoundError extends A2amockError {}

/** The a2amock binary did not start, or did not answer its health check. */
export class ServerStartError extends A2amockError {}

/**
 * The control API refused a call: a 4xx or 5xx with the server's message.
 * `field` names the request field at fault when the server says which;
 * `errors` holds every problem it listed.
 */
export class ControlAPIError extends A2amockError {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly serverMessage: string,
    readonly field?: string,
    readonly errors: unknown[] = [],
    readonly body = "",
  ) {
    super(`a2amock ${method} ${path}: HTTP ${status}: ${serverMessage}${field ? ` (field ${field})` : ""}`);
  }
}

/** The control API answered 404: no such agent. */
export class NotFoundError extends ControlAPIError {}

/** The control API answered 409: the agent exists, or cannot be removed. */
export class ConflictError extends ControlAPIError {}

/** The control API answered 400, 413 or 415: the request is malformed. */
export class InvalidRequestError extends ControlAPIError {}
