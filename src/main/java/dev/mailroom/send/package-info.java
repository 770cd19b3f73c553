/**
 * The send side of Mailroom: the job contract (the JMS payload of design §2, published as
 * {@code /schema/mailroom-job.schema.json} and mirrored by {@link dev.mailroom.send.SendJob}), its
 * parsing and validation on receipt ({@link dev.mailroom.send.JobParser}), template rendering
 * ({@link dev.mailroom.send.TemplateRenderer}) and the send path that turns a valid job into a
 * provider call.
 */
package dev.mailroom.send;
