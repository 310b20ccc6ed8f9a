// Migration 0005, kept so that databases which ran it still match the history: the built-in processor's tables now
// belong to its package.

/**
 * Once created the built-in test-mode processor's tables. They now belong to its package
 * (packages/stripe-test-processor), whose own migrations create them if they are missing; this entry stays so that
 * databases which ran it still match the shop's migration history.
 */
export async function up(): Promise<void> {}

export async function down(): Promise<void> {}
