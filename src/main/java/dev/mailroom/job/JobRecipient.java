package dev.mailroom.job;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.Table;
import java.io.Serializable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One recipient of a job: its normalised address (searchable) and its own delivery state, which the
 * reconciliation rolls up to the job. {@code kind} is {@code to}, {@code cc} or {@code bcc}.
 */
@Entity
@Table(name = "job_recipient")
@IdClass(JobRecipient.Key.class)
public class JobRecipient {

    @Id
    @Column(name = "job_id")
    private Long jobId;
    @Id
    private Integer position;
    private String kind;
    private String address;
    @Column(name = "delivery_state")
    private String deliveryState;
    @Column(name = "delivery_detail")
    private String deliveryDetail;
    @Column(name = "delivery_at")
    private Instant deliveryAt;

    protected JobRecipient() {
    }

    public JobRecipient(long jobId, int position, String kind, String address) {
        this.jobId = jobId;
        this.position = position;
        this.kind = kind;
        this.address = address;
    }

    /** The job's recipients in order: to, then cc, then bcc, each address normalised. */
    public static List<JobRecipient> of(long jobId, SendJob job) {
        List<JobRecipient> all = new ArrayList<>();
        for (String a : job.to()) all.add(new JobRecipient(jobId, all.size(), "to", normalise(a)));
        for (String a : job.cc()) all.add(new JobRecipient(jobId, all.size(), "cc", normalise(a)));
        for (String a : job.bcc()) all.add(new JobRecipient(jobId, all.size(), "bcc", normalise(a)));
        return all;
    }

    /**
     * The addr-spec of an address as searched and matched: {@code "Alice <Alice@Example.com>"} →
     * {@code alice@example.com}. Lower-casing the local part too is what every large mailbox provider does,
     * and what support types in; the job payload keeps the address as it was given.
     */
    public static String normalise(String address) {
        if (address == null) {
            return null;
        }
        String a = address.trim();
        int open = a.lastIndexOf('<');
        int close = a.lastIndexOf('>');
        if (open >= 0 && close > open) {
            a = a.substring(open + 1, close).trim();
        }
        a = a.toLowerCase(Locale.ROOT);
        return a.length() <= 320 ? a : a.substring(0, 320);
    }

    /**
     * The one-way form of a normalised address an erasure leaves in the suppression list: {@code sha256:} and the
     * hex SHA-256 of its UTF-8 bytes. The suppression step looks a recipient up by it too, so an erased address
     * stays suppressed without being stored.
     */
    public static String hashed(String normalisedAddress) {
        return "sha256:" + sha256(normalisedAddress);
    }

    /** Hex SHA-256 of {@code text}'s UTF-8 bytes. */
    public static String sha256(String text) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    public Long getJobId() { return jobId; }
    public Integer getPosition() { return position; }
    public String getKind() { return kind; }
    public String getAddress() { return address; }
    public String getDeliveryState() { return deliveryState; }
    public String getDeliveryDetail() { return deliveryDetail; }
    public Instant getDeliveryAt() { return deliveryAt; }

    /** Records this recipient's delivery state (the caller decides whether the change is allowed). */
    public void delivery(String state, String detail, Instant at) {
        this.deliveryState = state;
        this.deliveryDetail = detail == null || detail.length() <= 2000 ? detail : detail.substring(0, 2000);
        this.deliveryAt = at;
    }

    /** The composite key (job, position). */
    public static class Key implements Serializable {
        private Long jobId;
        private Integer position;

        public Key() {
        }

        public Key(Long jobId, Integer position) {
            this.jobId = jobId;
            this.position = position;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && java.util.Objects.equals(jobId, k.jobId) && java.util.Objects.equals(position, k.position);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(jobId, position);
        }
    }
}
