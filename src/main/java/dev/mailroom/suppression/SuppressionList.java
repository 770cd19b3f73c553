package dev.mailroom.suppression;

import dev.mailroom.job.JobLedger;
import dev.mailroom.job.JobRecipient;
import dev.mailroom.job.MailJob;
import dev.mailroom.platform.Refused;
import io.micrometer.core.instrument.MeterRegistry;
import dev.mailroom.platform.Meters;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.TypedQuery;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * The suppression list: entries added by the reconciliation ({@link #fromEvent}) and by operators
 * ({@link #add}), lifted by operators ({@link #lift}), listed ({@link #find}). An entry is never deleted;
 * at most one per tenant and address is active ({@code active_key} is unique), so adding an address that is
 * already suppressed changes nothing. Operator actions are logged with who and why, as every operator action is.
 */
@ApplicationScoped
public class SuppressionList {

    private static final Logger LOG = Logger.getLogger(SuppressionList.class.getName());
    static final int MAX_WHY = 1000;
    static final int MAX_TENANT = 200;
    static final int MAX_ADDRESS = 320;

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;
    @Inject
    Clock clock;
    @Inject
    @Meters
    MeterRegistry meters;

    /** One entry as the API shows it; {@code causeMessageId} is the message_id of the job that caused it. */
    public record View(long id, String tenant, String address, SuppressionReason reason, boolean active,
                       Long causeEventId, Long causeJobId, String causeMessageId, String causeQueue, String cause,
                       String createdBy, String createdWhy, Instant createdAt,
                       Instant liftedAt, String liftedBy, String liftedWhy) { }

    public record Page(List<View> items, int offset, int limit, Integer next) { }

    /**
     * What to list.
     *
     * @param address   a part of the normalised address, or null for any
     * @param anyTenant true: every tenant; false: only {@code tenant} (null: the default tenant)
     * @param reason    one reason, or null for any
     * @param status    {@code active}, {@code lifted}, or null for both
     */
    public record Filter(String address, boolean anyTenant, String tenant, SuppressionReason reason, String status) { }

    /**
     * Puts the recipient of a provider event on the job's tenant's list, in the reconciliation's transaction.
     * The event's recipient if it names one, else the job's only recipient; an event about a job with several
     * recipients that names none suppresses nobody (it cannot say whom). Already suppressed: nothing changes.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void fromEvent(MailJob job, String eventRecipient, SuppressionReason reason, long providerEventId,
                          String description, Instant now) {
        String address = eventRecipient == null ? onlyRecipient(job.getId()).orElse(null) : JobRecipient.normalise(eventRecipient);
        if (address == null || address.isBlank()) {
            LOG.warning(() -> "provider event " + providerEventId + " (" + reason + ") names no recipient and job "
                    + job.getMessageId() + " has several: nobody suppressed");
            return;
        }
        String cause = reason + " reported by provider event " + providerEventId + " about job " + job.getMessageId()
                + (description == null ? "" : ": " + description);
        insert(job.getTenant(), address, reason, providerEventId, job.getId(), cause, "reconciliation", null, now)
                .ifPresent(id -> LOG.info(() -> "suppressed " + address + " (tenant " + job.getTenant() + "): " + cause));
    }

    /** An operator puts {@code address} on the list of {@code tenant} (null: the default tenant), saying why. */
    @Transactional
    public View add(String tenant, String address, String actor, String why) {
        String reasonGiven = requireWhy(why);
        String t = tenant == null || tenant.isBlank() ? null : tenant.strip();
        if (t != null && t.length() > MAX_TENANT) {
            throw new Refused.Invalid("invalid_tenant", "a tenant is at most " + MAX_TENANT + " characters");
        }
        String a = validAddress(address);
        String cause = "added by " + actor + ": " + reasonGiven;
        long id = insert(t, a, SuppressionReason.manual, null, null, cause, actor, reasonGiven, clock.instant())
                .orElseThrow(() -> {
                    Suppression existing = active(t, a).orElseThrow();
                    return new Refused.Conflict("already_suppressed", a + " is already suppressed for "
                            + tenantName(t) + " (#" + existing.getId() + ", " + existing.getReason() + ")");
                });
        LOG.info(() -> String.format("suppression %d: %s added %s for %s: %s", id, actor, a, tenantName(t), reasonGiven));
        return view(id);
    }

    /** An operator lifts entry {@code id}: it is kept, with when, by whom and why; the address is mailed again. */
    @Transactional
    public View lift(long id, String actor, String why) {
        String reasonGiven = requireWhy(why);
        Suppression s = em.find(Suppression.class, id, LockModeType.PESSIMISTIC_WRITE);
        if (s == null) {
            throw new Refused.NotFound("suppression_not_found", "no suppression with id " + id);
        }
        if (!s.active()) {
            throw new Refused.Conflict("already_lifted", "suppression " + id + " was lifted at " + s.getLiftedAt()
                    + " by " + s.getLiftedBy());
        }
        s.lift(clock.instant(), actor, reasonGiven);
        em.flush();
        meters.counter("mailroom.suppression.lifted", "reason", s.getReason()).increment();
        LOG.info(() -> String.format("suppression %d: %s lifted %s for %s: %s", id, actor, s.getAddress(),
                tenantName(s.getTenant()), reasonGiven));
        return view(id);
    }

    public View get(long id) {
        Suppression s = em.find(Suppression.class, id);
        if (s == null) {
            throw new Refused.NotFound("suppression_not_found", "no suppression with id " + id);
        }
        return view(id);
    }

    /** Newest first, {@code limit} from {@code offset}; {@code next} is the offset of the next page, if any. */
    public Page find(Filter f, int offset, int limit) {
        StringBuilder where = new StringBuilder(" where 1 = 1");
        Map<String, Object> params = new HashMap<>();
        if (f.address() != null && !f.address().isBlank()) {
            // locate, not like: an address's "_" and "%" are no wildcards
            where.append(" and locate(:a, s.address) > 0");
            params.put("a", f.address().strip().toLowerCase(Locale.ROOT));
        }
        if (!f.anyTenant()) {
            where.append(f.tenant() == null ? " and s.tenant is null" : " and s.tenant = :t");
            if (f.tenant() != null) {
                params.put("t", f.tenant());
            }
        }
        if (f.reason() != null) {
            where.append(" and s.reason = :r");
            params.put("r", f.reason().name());
        }
        if ("active".equals(f.status())) {
            where.append(" and s.liftedAt is null");
        } else if ("lifted".equals(f.status())) {
            where.append(" and s.liftedAt is not null");
        }
        TypedQuery<Long> q = em.createQuery("select s.id from Suppression s" + where + " order by s.id desc", Long.class);
        params.forEach(q::setParameter);
        List<Long> ids = q.setFirstResult(offset).setMaxResults(limit + 1).getResultList();
        boolean more = ids.size() > limit;
        List<View> items = new ArrayList<>();
        for (Long id : more ? ids.subList(0, limit) : ids) {
            items.add(view(id));
        }
        return new Page(items, offset, limit, more ? offset + limit : null);
    }

    /** Inserts an active entry unless one is active for (tenant, address): its id, or empty when there was one. */
    private Optional<Long> insert(String tenant, String address, SuppressionReason reason, Long causeEventId,
                                  Long causeJobId, String cause, String actor, String why, Instant now) {
        int inserted = em.createNativeQuery("""
                        insert into suppression (tenant, address, reason, cause_event_id, cause_job_id, cause, created_by,
                                                 created_why, created_at, active_key)
                        values (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                        on conflict do nothing""")
                .setParameter(1, tenant)
                .setParameter(2, address)
                .setParameter(3, reason.name())
                .setParameter(4, causeEventId)
                .setParameter(5, causeJobId)
                .setParameter(6, cut(cause, 2000))
                .setParameter(7, actor)
                .setParameter(8, why)
                .setParameter(9, now.atOffset(ZoneOffset.UTC))
                .setParameter(10, JobLedger.suppressionKey(tenant, address))
                .executeUpdate();
        if (inserted == 0) {
            return Optional.empty();
        }
        meters.counter("mailroom.suppression.added", "reason", reason.name()).increment();
        return active(tenant, address).map(Suppression::getId);
    }

    private Optional<Suppression> active(String tenant, String address) {
        return em.createQuery("select s from Suppression s where s.activeKey = :k", Suppression.class)
                .setParameter("k", JobLedger.suppressionKey(tenant, address))
                .getResultStream().findFirst();
    }

    private Optional<String> onlyRecipient(long jobId) {
        List<String> addresses = em.createQuery("select distinct r.address from JobRecipient r where r.jobId = :j", String.class)
                .setParameter("j", jobId).getResultList();
        return addresses.size() == 1 ? Optional.of(addresses.get(0)) : Optional.empty();
    }

    private View view(long id) {
        Suppression s = em.find(Suppression.class, id);
        MailJob job = s.getCauseJobId() == null ? null : em.find(MailJob.class, s.getCauseJobId());
        return new View(s.getId(), s.getTenant(), s.getAddress(), SuppressionReason.valueOf(s.getReason()), s.active(),
                s.getCauseEventId(), s.getCauseJobId(), job == null ? null : job.getMessageId(),
                job == null ? null : job.getQueue(), s.getCause(), s.getCreatedBy(), s.getCreatedWhy(), s.getCreatedAt(),
                s.getLiftedAt(), s.getLiftedBy(), s.getLiftedWhy());
    }

    /** The normalised addr-spec of an address an operator typed, or a refusal saying what is wrong with it. */
    static String validAddress(String address) {
        if (address == null || address.isBlank()) {
            throw new Refused.Invalid("address_required", "name the address: {\"address\": \"alice@example.com\", ...}");
        }
        String a = JobRecipient.normalise(address);
        if (address.strip().length() > MAX_ADDRESS + 200 || a.length() >= MAX_ADDRESS
                || !a.matches("[^@\\s<>]+@[^@\\s<>]+")) {
            throw new Refused.Invalid("invalid_address", "not an e-mail address: " + cut(address.strip(), 100));
        }
        return a;
    }

    private static String requireWhy(String why) {
        if (why == null || why.isBlank()) {
            throw new Refused.Invalid("why_required", "say why: {\"why\": \"...\"} (kept with the suppression)");
        }
        if (why.length() > MAX_WHY) {
            throw new Refused.Invalid("why_too_long", "a why is at most " + MAX_WHY + " characters");
        }
        return why.strip();
    }

    static String tenantName(String tenant) {
        return tenant == null ? "the default tenant" : "tenant " + tenant;
    }

    private static String cut(String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max);
    }
}
