package dev.mailroom.redrive;

import dev.mailroom.platform.Json;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.mailroom.platform.Refused;
import dev.mailroom.job.JobState;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The read side: a plan or run as its recovery record. A published entry's outcome is read from its
 * job and from whether its dead letter started a next lap, so the record is as fresh as the database.
 */
@ApplicationScoped
public class RedriveRecords {

    static final ObjectMapper JSON = Json.snakeCaseMapper();
    private static final int CHUNK = 500;

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;

    public RedriveRecord record(String id) {
        Redrive r = em.find(Redrive.class, id);
        if (r == null) {
            throw new Refused.NotFound("redrive_not_found", "no redrive with id " + id);
        }
        List<RedriveEntry> entries = em.createQuery(
                        "select e from RedriveEntry e where e.redriveId = :r order by e.position", RedriveEntry.class)
                .setParameter("r", id).getResultList();
        Map<Long, Observation> seen = observe(entries);
        Map<String, String> diffs = diffs(entries);
        List<RedriveRecord.Entry> views = new ArrayList<>();
        Map<String, Long> outcomes = new TreeMap<>();
        for (RedriveEntry e : entries) {
            Observation o = seen.get(e.getId());
            String outcome = o != null ? o.outcome() : e.getOutcome();
            outcomes.merge(outcome, 1L, Long::sum);
            views.add(new RedriveRecord.Entry(e.getDeadLetterId(), e.getMessageId(), e.getSourceQueue(), e.getReason(),
                    e.getFailureClass(), e.getFailedAt(), e.getLap(), e.getPhase(), outcome, e.getPublishedAt(),
                    e.getJmsMessageId(), e.getRevision(),
                    e.getRevision() == null ? null : diffs.get(e.getDeadLetterId() + ":" + e.getRevision()),
                    e.getIdempotencyKey(), e.getDetail(), e.getPlannedRevision(),
                    o == null || o.nextLap() == null ? null : o.nextLap().id(),
                    o == null || o.nextLap() == null ? null : o.nextLap().error()));
        }
        return view(r, entries, outcomes, views);
    }

    public List<RedriveRecord> recent(int limit) {
        return em.createQuery("select r from Redrive r order by r.createdAt desc", Redrive.class)
                .setMaxResults(limit).getResultStream()
                .map(r -> {
                    Map<String, Long> outcomes = new TreeMap<>();
                    em.createQuery("""
                                    select e.outcome, count(e) from RedriveEntry e where e.redriveId = :r
                                    and e.outcome <> 'published' group by e.outcome""", Object[].class)
                            .setParameter("r", r.getId()).getResultStream()
                            .forEach(row -> outcomes.put((String) row[0], ((Number) row[1]).longValue()));
                    // published is what the run recorded; what became of each (sent, dead-lettered again, ...)
                    // is read as for the record, so the list says the same as the run's own page
                    observe(em.createQuery("""
                                    select e from RedriveEntry e where e.redriveId = :r and e.outcome = 'published'""",
                                    RedriveEntry.class).setParameter("r", r.getId()).getResultList())
                            .values().forEach(o -> outcomes.merge(o.outcome(), 1L, Long::sum));
                    return view(r, null, outcomes, null);
                })
                .toList();
    }

    /**
     * What the run knows now of its published entries in {@code phase} (all phases when null). An entry
     * whose outcome is final cannot change any more: it is taken from {@code settled}, and newly final
     * ones are added there, so a long run reads only the entries still on their way.
     */
    public List<RedriveRules.Observed> observed(String id, String phase, Map<Long, RedriveRules.Observed> settled) {
        var query = em.createQuery("select e from RedriveEntry e where e.redriveId = :r and e.outcome = 'published'"
                + (phase == null ? "" : " and e.phase = :p"), RedriveEntry.class).setParameter("r", id);
        if (phase != null) {
            query.setParameter("p", phase);
        }
        List<RedriveEntry> published = query.getResultList();
        Map<Long, Observation> seen = observe(published.stream().filter(e -> !settled.containsKey(e.getId())).toList());
        List<RedriveRules.Observed> result = new ArrayList<>(published.size());
        for (RedriveEntry e : published) {
            RedriveRules.Observed o = settled.get(e.getId());
            if (o == null) {
                Observation now = seen.get(e.getId());
                o = new RedriveRules.Observed(now.outcome(), now.failedCalls());
                if (RedriveRules.Outcomes.FINAL.contains(o.outcome())) {
                    settled.put(e.getId(), o);
                }
            }
            result.add(o);
        }
        return result;
    }

    private record Observation(String outcome, int failedCalls, NextLap nextLap) { }

    /** The dead letter a replayed entry became when it failed again, and its error this time. */
    private record NextLap(long id, String error) { }

    private Map<Long, Observation> observe(List<RedriveEntry> entries) {
        List<RedriveEntry> published = entries.stream()
                .filter(e -> e.outcomeValue() == RedriveEntry.Outcome.published).toList();
        Map<Long, Observation> result = new HashMap<>();
        for (int from = 0; from < published.size(); from += CHUNK) {
            List<RedriveEntry> chunk = published.subList(from, Math.min(published.size(), from + CHUNK));
            List<Long> ids = chunk.stream().map(RedriveEntry::getDeadLetterId).toList();
            Map<Long, Long> jobOf = new HashMap<>();
            em.createQuery("select d.id, d.jobId from DeadLetter d where d.id in :ids and d.jobId is not null",
                            Object[].class)
                    .setParameter("ids", ids).getResultStream()
                    .forEach(row -> jobOf.put((Long) row[0], (Long) row[1]));
            Map<Long, NextLap> nextLap = new HashMap<>();
            em.createQuery("""
                            select d.previousDeadLetterId, d.id, d.error from DeadLetter d
                            where d.previousDeadLetterId in :ids""", Object[].class)
                    .setParameter("ids", ids).getResultStream()
                    .forEach(row -> nextLap.put((Long) row[0], new NextLap((Long) row[1], (String) row[2])));
            Map<Long, JobState> states = new HashMap<>();
            Map<Long, List<Instant>> failures = new HashMap<>();
            if (!jobOf.isEmpty()) {
                em.createQuery("select j.id, j.state from MailJob j where j.id in :ids", Object[].class)
                        .setParameter("ids", jobOf.values()).getResultStream()
                        .forEach(row -> states.put((Long) row[0], (JobState) row[1]));
                Instant since = chunk.stream().map(RedriveEntry::getPublishedAt).min(Instant::compareTo).orElseThrow();
                em.createQuery("""
                                select a.jobId, a.startedAt from JobAttempt a where a.jobId in :ids
                                and a.failureClass is not null and a.startedAt >= :since""", Object[].class)
                        .setParameter("ids", jobOf.values()).setParameter("since", since).getResultStream()
                        .forEach(row -> failures.computeIfAbsent((Long) row[0], k -> new ArrayList<>()).add((Instant) row[1]));
            }
            for (RedriveEntry e : chunk) {
                Long job = jobOf.get(e.getDeadLetterId());
                String outcome = RedriveRules.refine(RedriveEntry.Outcome.published, job == null ? null : states.get(job),
                        nextLap.containsKey(e.getDeadLetterId()));
                int failed = job == null ? 0 : (int) failures.getOrDefault(job, List.of()).stream()
                        .filter(at -> !at.isBefore(e.getPublishedAt())).count();
                result.put(e.getId(), new Observation(outcome, failed, nextLap.get(e.getDeadLetterId())));
            }
        }
        return result;
    }

    private Map<String, String> diffs(List<RedriveEntry> entries) {
        Map<String, String> diffs = new HashMap<>();
        List<Long> edited = entries.stream().filter(e -> e.getRevision() != null).map(RedriveEntry::getDeadLetterId).toList();
        if (!edited.isEmpty()) {
            em.createQuery("select r from DeadLetterRevision r where r.deadLetterId in :ids", DeadLetterRevision.class)
                    .setParameter("ids", edited).getResultStream()
                    .forEach(r -> diffs.put(r.getDeadLetterId() + ":" + r.getRevision(), r.getDiff()));
        }
        return diffs;
    }

    private RedriveRecord view(Redrive r, List<RedriveEntry> entries, Map<String, Long> outcomes,
                               List<RedriveRecord.Entry> views) {
        Map<String, Long> byReason = new TreeMap<>();
        Map<String, Long> byQueue = new TreeMap<>();
        if (entries != null) {
            for (RedriveEntry e : entries) {
                byReason.merge(e.getReason(), 1L, Long::sum);
                byQueue.merge(e.getSourceQueue(), 1L, Long::sum);
            }
        }
        RedriveRecord.Cohort cohort = new RedriveRecord.Cohort(r.getCohortCount(), entries == null ? null : byReason,
                entries == null ? null : byQueue, read(r.getExcludedJson(), new TypeReference<LinkedHashMap<String, Long>>() { }));
        List<RedriveRecord.Phase> phases = read(r.getPhasesJson(), new TypeReference<List<RedriveRecord.Phase>>() { });
        return new RedriveRecord(r.getId(), r.getAction(), r.getStatus(), r.getCreatedBy(), r.getCreatedAt(),
                r.getReason(), read(r.getFilterJson(), new TypeReference<RedriveFilter>() { }), r.options(), cohort,
                phases == null ? List.of() : phases, r.getStopReason(), r.getStartedBy(), r.getStartedAt(),
                r.getFinishedAt(), outcomes, views,
                RedriveRules.commands(r.statusValue()).stream().map(Enum::name).toList());
    }

    static String write(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static <T> T read(String json, TypeReference<T> type) {
        if (json == null) {
            return null;
        }
        try {
            return JSON.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("unreadable redrive record field: " + json, e);
        }
    }
}
