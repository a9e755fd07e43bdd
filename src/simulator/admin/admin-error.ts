/** An admin request the simulator cannot honour; the status says why (400, 404, 409). */
export class AdminError extends Error {
  override readonly name = 'AdminError';

  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
  ) {
    super(message);
  }
}
