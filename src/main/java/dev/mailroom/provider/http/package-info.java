/** HTTP mail APIs: a generic JSON profile and named provider profiles (Resend), with idempotency headers. */
package dev.mailroom.provider.http;
