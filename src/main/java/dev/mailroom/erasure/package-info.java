/**
 * Erasure of one address (docs/erasure.md): every row naming it, in every table that can hold an address, is
 * deleted, has the address replaced by a marker, is discarded (an open dead letter) or keeps it as a one-way hash
 * (a suppression), as the pure {@link dev.mailroom.erasure.ErasurePolicy} decides; {@link dev.mailroom.erasure.Erasure}
 * carries it out in bounded batches and keeps the audit ({@code erasure}: who, when, why, rows per kind, the
 * address's hash, never the address).
 *
 * <p>May use: platform, job, deadletter.
 */
package dev.mailroom.erasure;
