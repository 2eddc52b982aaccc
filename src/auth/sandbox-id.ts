const validId = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * A sandbox id a client may choose: 1-128 characters of A-Z a-z 0-9 _ - (contract section 3).
 * Its own module, free of h3, so the command line's option parsers can check one cheaply.
 */
export const isSandboxId = (value: string): boolean => validId.test(value);
