/**
 * A sandbox id a client may choose: 1-128 characters of A-Z a-z 0-9 _ - (contract section 3).
 * Its own module, free of h3, so the command line's option parsers can check one cheaply; the
 * request context tests the pattern itself (no call on the hot path).
 */
export const sandboxIdPattern = /^[A-Za-z0-9_-]{1,128}$/;

export const isSandboxId = (value: string): boolean => sandboxIdPattern.test(value);
