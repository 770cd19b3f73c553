/**
 * A job's attachments from the door to the provider: which sources may be fetched ({@link
 * dev.mailroom.attachment.SourceRule}, pure), whether a job's attachments are refused before anything happens
 * (sizes, sources), the fetch at send time with its bounded timeouts ({@link dev.mailroom.attachment.AttachmentFetcher}),
 * what a failed fetch is ({@link dev.mailroom.attachment.FetchFailures}, pure), and the bytes handed to the provider.
 *
 * <p>May use: contract, platform, provider (the attachment a provider is handed), recoverability (a failed fetch is a
 * failure like any other).
 */
package dev.mailroom.attachment;
