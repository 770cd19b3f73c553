package dev.mailroom.job;

import dev.mailroom.contract.RejectReason;

import java.util.Objects;

/**
 * A job's template cannot be rendered because of the job itself: the template it names does not exist
 * ({@link RejectReason#missing_template}) or it lacks a variable the template uses
 * ({@link RejectReason#missing_template_variable}). Checked, because the send path must turn it into a
 * rejection of the job (dead letter {@code poison}), not let it escape as a handler error.
 */
public final class TemplateException extends Exception {

    private static final long serialVersionUID = 1L;

    private final RejectReason reason;

    /**
     * @param reason {@link RejectReason#missing_template} or {@link RejectReason#missing_template_variable}
     * @param detail what is missing, for the operator
     */
    public TemplateException(RejectReason reason, String detail) {
        super(detail);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /** Why the job cannot be rendered. */
    public RejectReason reason() {
        return reason;
    }

    /** What is missing (the same text as {@link #getMessage()}). */
    public String detail() {
        return getMessage();
    }
}
