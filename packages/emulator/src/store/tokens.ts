/** Bytes of randomness in a user group token: 192 bits, comfortably above the 128 required. */
const TOKEN_BYTES = 24;

/** A new user group token: 192 random bits from the platform CSPRNG, base64url (32 characters). */
export function newUserGroupToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(TOKEN_BYTES));
  return Buffer.from(bytes).toString('base64url');
}
