package dev.mailroom.alert;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mailroom.platform.SqlTimestamps;
import dev.mailroom.platform.lease.Leases;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Status;
import jakarta.transaction.Transactional;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The alert outbox ({@code alert_outbox}): where an occurrence is kept from the moment it is raised until
 * the node holding the delivery lease has delivered it ({@link AlertOutboxDelivery}), so that neither a
 * restart nor the death of a node loses an alert, and with several nodes each alert is delivered once.
 *
 * <p>{@link #raiseInTransaction} joins the caller's transaction (a dead letter's alert is written with the
 * dead letter, and goes with it if it rolls back); {@link #raise} commits the row on its own, for facts that
 * are not part of the caller's transaction (a breaker opening, a line stopping). If the row cannot be
 * written outside a transaction (the database does not answer), the occurrence goes to this node's own
 * in-memory dispatcher ({@link AlertService}) instead: delivered by this node, not kept. Feeding a dispatcher and
 * marking rows delivered are writes under the delivery lease, each checked against it ({@link Leases#fenced}).
 */
@ApplicationScoped
public class AlertOutbox {

    private static final Logger LOG = Logger.getLogger(AlertOutbox.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<Map<String, String>> LABELS = new TypeReference<>() {
    };

    /** One undelivered row. */
    public record Row(long id, AlertEvent event) {
    }

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;
    @Resource
    TransactionSynchronizationRegistry transactions;
    @Inject
    AlertService memory;
    @Inject
    AlertOutbox self;
    @Inject
    Clock clock;
    @Inject
    Leases leases;
    @Inject
    @ConfigProperty(name = "mailroom.node.id", defaultValue = "mailroom-1")
    String node;

    /** Keeps {@code event} in the caller's transaction if there is one, else in a transaction of its own. */
    public void raiseInTransaction(AlertEvent event) {
        if (transactions.getTransactionStatus() == Status.STATUS_ACTIVE) {
            self.insertJoined(event);
        } else {
            raise(event);
        }
    }

    /** Keeps {@code event} in a transaction of its own; never throws (falls back to memory, logged). */
    public void raise(AlertEvent event) {
        try {
            self.insertOwn(event);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "alert outbox not written (" + e + "); alert kept in memory on " + node
                    + " only: " + event.kind() + " " + event.labels());
            memory.raise(event);
        }
    }

    @Transactional(Transactional.TxType.MANDATORY)
    public void insertJoined(AlertEvent event) {
        insert(event);
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void insertOwn(AlertEvent event) {
        insert(event);
    }

    private void insert(AlertEvent event) {
        em.createNativeQuery("insert into alert_outbox (kind, labels, summary, occurred_at, raised_by) values (?1, ?2, ?3, ?4, ?5)")
                .setParameter(1, event.kind().name())
                .setParameter(2, json(event.labels()))
                .setParameter(3, cut(event.summary(), 4000))
                .setParameter(4, OffsetDateTime.ofInstant(event.at(), java.time.ZoneOffset.UTC))
                .setParameter(5, node)
                .executeUpdate();
    }

    /**
     * Up to {@code limit} undelivered rows that dispatcher {@code feed} does not have yet, oldest first, stamped as
     * its own in the same transaction. Not an id high-water mark: a row committed after rows with higher ids (its
     * transaction was longer) is found all the same.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<Row> feed(String feed, int limit) {
        if (!leases.fenced(AlertOutboxDelivery.LEASE)) {
            return List.of(); // another node delivers now: this one stamps no row as its dispatcher's
        }
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("select id, kind, labels, summary, occurred_at from alert_outbox"
                        + " where delivered_at is null and coalesce(fed_in, '') <> ?1 order by id")
                .setParameter(1, feed)
                .setMaxResults(limit)
                .getResultList();
        List<Row> out = rows.stream().map(r -> new Row(((Number) r[0]).longValue(), new AlertEvent(
                AlertEvent.Kind.valueOf((String) r[1]), labels((String) r[2]), (String) r[3],
                SqlTimestamps.instant(r[4])))).toList();
        if (!out.isEmpty()) {
            em.createNativeQuery("update alert_outbox set fed_in = :feed where id in (:ids)")
                    .setParameter("feed", feed)
                    .setParameter("ids", out.stream().map(Row::id).toList())
                    .executeUpdate();
        }
        return out;
    }

    /**
     * Records that every row dispatcher {@code feed} has, below {@code belowId}, was delivered by this node;
     * returns how many.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public int markDelivered(String feed, long belowId) {
        if (!leases.fenced(AlertOutboxDelivery.LEASE)) {
            return 0;
        }
        return em.createNativeQuery("update alert_outbox set delivered_at = ?1, delivered_by = ?2"
                        + " where fed_in = ?3 and delivered_at is null and id < ?4")
                .setParameter(1, OffsetDateTime.ofInstant(clock.instant(), java.time.ZoneOffset.UTC))
                .setParameter(2, node)
                .setParameter(3, feed)
                .setParameter(4, belowId)
                .executeUpdate();
    }

    /** How many rows wait for delivery: for the API and metrics. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public long undeliveredCount() {
        return ((Number) em.createNativeQuery("select count(*) from alert_outbox where delivered_at is null")
                .getSingleResult()).longValue();
    }

    private static String json(Map<String, String> labels) {
        try {
            return JSON.writeValueAsString(labels);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("labels of an alert cannot be written as JSON", e);
        }
    }

    private static Map<String, String> labels(String json) {
        try {
            return JSON.readValue(json, LABELS);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("alert_outbox.labels is not a JSON object: " + json, e);
        }
    }

    private static String cut(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }
}
