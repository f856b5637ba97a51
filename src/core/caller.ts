// Who is asking: decided once per request by the guard, handed to services as a plain value.

/** What an API token may do: read (GET, HEAD and the download rows) or also write. */
export type Scope = 'read' | 'write';

export interface Caller {
  readonly userId: string;
  readonly username: string;
  readonly roles: readonly string[];
  readonly isAdmin: boolean;
  /** anonymous: AUTH_MODE=disabled, where every request acts as the local administrator. */
  readonly via: 'session' | 'token' | 'anonymous';
  readonly sessionId?: string;
  readonly tokenId?: string;
  readonly tokenScope?: Scope;
  /** The session was opened with a password (not a passkey or the provider). */
  readonly passwordSession?: boolean;
  /** A share-link holder: the resolver lets this caller reach `share/<token>/…` and nothing else. */
  readonly link?: { readonly token: string; readonly shareId?: string };
  /** The client's address as the activity log records it (TRUST_PROXY applied), set by the guard. */
  readonly address?: string;
}
