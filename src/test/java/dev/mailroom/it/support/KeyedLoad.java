package dev.mailroom.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.testsupport.SmtpTestServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A load of jobs with ordering keys, the shape per-key order is specified at: {@code keys} keys × {@value #PER_KEY}
 * jobs, interleaved on {@code mail.send} (job 0 of every key, then job 1 of every key, ...), each key its JMS group,
 * the relay refusing the 3rd job of each key in {@code refused} twice (451, transient). Job {@code i} of key {@code k}
 * is {@code <prefix><k>.<i>} (no slash: a message id is a path segment of the API).
 *
 * <p>Each round sends the keys in the order 0, 10, 20, ..., 1, 11, 21, ...: the broker deals new groups to the
 * consumers in turn, so every 10th key sent in numeric order would land on 4 of 8 consumers (10 and 8 share the factor
 * 2), each serving 5 refused keys; in this order they spread over all 8, 2 or 3 each, as keys with no pattern do.
 */
public final class KeyedLoad {

    public static final int PER_KEY = 10;

    /** One mail of this load at the relay; {@code position} is its place in the send. */
    public record Arrival(String id, int key, int seq, int position, Instant at) {
    }

    private final String prefix;
    private final int keys;
    private final Set<Integer> refused;
    private final List<String> ids = new ArrayList<>();
    /** Each key's place in a round. */
    private final int[] slot;
    private final Map<String, String> idOfSmtp = new HashMap<>();
    private Instant start;

    private KeyedLoad(String name, int keys, Set<Integer> refused) {
        this.prefix = Jobs.runPrefix(name);
        this.keys = keys;
        this.refused = Set.copyOf(refused);
        List<Integer> order = java.util.stream.IntStream.range(0, keys).boxed()
                .sorted(Comparator.<Integer>comparingInt(k -> k % 10).thenComparingInt(k -> k / 10)).toList();
        this.slot = new int[keys];
        for (int s = 0; s < keys; s++) {
            slot[order.get(s)] = s;
        }
        for (int i = 0; i < PER_KEY; i++) {
            for (int k : order) {
                String id = prefix + k + "." + i;
                ids.add(id);
                idOfSmtp.put(Jobs.smtpMessageId(id), id);
            }
        }
    }

    /** {@code keys} keys, of which those in {@code refused} have their 3rd job refused twice. */
    public static KeyedLoad of(String name, int keys, Set<Integer> refused) {
        return new KeyedLoad(name, keys, refused);
    }

    /** Every {@code step}th key of {@code keys}, from key 0. */
    public static Set<Integer> everyNth(int keys, int step) {
        Set<Integer> s = new java.util.TreeSet<>();
        for (int k = 0; k < keys; k += step) {
            s.add(k);
        }
        return s;
    }

    public String prefix() {
        return prefix;
    }

    public int keys() {
        return keys;
    }

    public Set<Integer> refused() {
        return refused;
    }

    /** The ids in the order they are sent. */
    public List<String> ids() {
        return ids;
    }

    /** When {@link #send} began. */
    public Instant start() {
        return start;
    }

    /** The relay's refusals set, then every job sent, each with its key as its JMS group. */
    public KeyedLoad send(Mailroom m) {
        for (int k : refused) {
            m.smtp().refuse(Jobs.smtpMessageId(prefix + k + ".2"), 2, 451, "4.3.0 Temporary local problem");
        }
        List<String> bodies = new ArrayList<>();
        Map<String, String> keyOf = new HashMap<>();
        for (String id : ids) {
            String key = id.substring(0, id.lastIndexOf('.'));
            String body = """
                    {"schema_version": 3, "message_id": "%s", "tenant": "it", "ordering_key": "%s",
                     "from": "Mailroom IT <noreply@example.com>", "to": ["alice@example.com"],
                     "subject": "Hello %s", "text": "Hi Alice, this is %s."}""".formatted(id, key, id, id);
            bodies.add(body);
            keyOf.put(body, key);
        }
        start = Instant.now();
        m.jms().sendAll("mail.send", bodies, body -> Map.of("JMSXGroupID", keyOf.get(body)));
        return this;
    }

    /** This load's mails at the relay so far, in the order they arrived. */
    public List<Arrival> arrivals(SmtpTestServer smtp) {
        List<Arrival> mine = new ArrayList<>();
        for (SmtpTestServer.ReceivedMail mail : smtp.received()) {
            String id = idOfSmtp.get(mail.messageId());
            if (id != null) {
                String key = id.substring(0, id.lastIndexOf('.'));
                int k = Integer.parseInt(key.substring(prefix.length()));
                int seq = Integer.parseInt(id.substring(id.lastIndexOf('.') + 1));
                mine.add(new Arrival(id, k, seq, seq * keys + slot[k], mail.at()));
            }
        }
        mine.sort(Comparator.comparing(Arrival::at));
        return mine;
    }

    /** Waits until every job of this load is at the relay (at most {@code limit}), then returns the arrivals. */
    public List<Arrival> awaitAll(SmtpTestServer smtp, Duration limit) {
        List<Arrival> all = new ArrayList<>();
        org.awaitility.Awaitility.await(prefix + ": every job at the relay").atMost(limit)
                .pollInterval(Duration.ofMillis(200)).until(() -> {
                    all.clear();
                    all.addAll(arrivals(smtp));
                    return all.size() >= ids.size();
                });
        return all;
    }

    /**
     * Every key's mails at the relay in the order they were sent, none twice; with {@code complete}, every job of the
     * load there.
     */
    public static void assertInOrderOnce(List<Arrival> arrivals, int keys, boolean complete) {
        Map<Integer, List<Integer>> byKey = new TreeMap<>();
        Map<String, Integer> times = new HashMap<>();
        for (Arrival a : arrivals) {
            byKey.computeIfAbsent(a.key(), x -> new ArrayList<>()).add(a.seq());
            times.merge(a.id(), 1, Integer::sum);
        }
        assertThat(times).as("no job at the relay twice").allSatisfy((id, n) -> assertThat(n).as(id).isEqualTo(1));
        assertThat(byKey).as("every key's mails in order").allSatisfy((k, seqs) -> assertThat(seqs).as("key " + k)
                .isSorted());
        if (complete) {
            assertThat(times).as("every job at the relay").hasSize(keys * PER_KEY);
        }
    }
}
