package dev.mailroom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Collectors;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The benchmark's own pieces that need no server: the plain beans' queues, their WAR and counts, the report, the chart. */
class SendBenchPiecesTest {

    private static final String XML = """
                <server>
                    <external-jms-queue name="mail.send" entries="java:/jms/queue/mail.send" enable-amq1-prefix="false"/>
                    <address-setting name="mail.send" dead-letter-address="DLQ.mail.send" max-delivery-attempts="5"/>
                    <address-setting name="DLQ.mail.send" auto-create-queues="true"/>
                </server>
            """;

    @Test
    void thePlainQueuesGetMailSendsSettingsWithADlqEach() {
        String xml = SendBench.withPlainQueues(XML);

        for (String queue : List.of("bench.naive", "bench.guarded")) {
            assertThat(xml).contains("<external-jms-queue name=\"" + queue + "\" entries=\"java:/jms/queue/" + queue
                    + "\" enable-amq1-prefix=\"false\"/>");
            assertThat(xml).contains("<address-setting name=\"" + queue + "\" dead-letter-address=\"DLQ." + queue
                    + "\" max-delivery-attempts=\"5\"/>");
        }
        assertThat(xml).contains("<address-setting name=\"mail.send\" dead-letter-address=\"DLQ.mail.send\"");
    }

    @Test
    void aConfigurationWithoutMailSendIsRefused() {
        assertThatThrownBy(() -> SendBench.withPlainQueues("<server/>")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theNaiveWarHoldsBothBeansAndTheirDescriptorsOnly(@TempDir Path dir) throws Exception {
        Path war = NaiveWar.build(dir.resolve("naive-mdb.war"));

        try (JarFile jar = new JarFile(war.toFile())) {
            List<String> names = jar.stream().map(e -> e.getName()).collect(Collectors.toList());
            assertThat(names).contains("WEB-INF/classes/dev/mailroom/bench/naive/NaiveSendConsumer.class",
                    "WEB-INF/classes/dev/mailroom/bench/naive/NaiveMail.class",
                    "WEB-INF/classes/dev/mailroom/bench/naive/GuardedSendConsumer.class",
                    "WEB-INF/classes/dev/mailroom/bench/naive/GuardedLedger.class",
                    "WEB-INF/classes/dev/mailroom/bench/naive/ProviderCall.class",
                    "WEB-INF/classes/dev/mailroom/bench/naive/BenchJob.class",
                    "WEB-INF/classes/META-INF/persistence.xml", "WEB-INF/classes/META-INF/naive-create.sql",
                    "WEB-INF/jboss-ejb3.xml");
            assertThat(names).noneMatch(n -> n.contains("dev/mailroom/") && !n.contains("dev/mailroom/bench/naive/"));
            String ejb = new String(jar.getInputStream(jar.getEntry("WEB-INF/jboss-ejb3.xml")).readAllBytes());
            assertThat(ejb).contains("<ejb-name>GuardedSendConsumer</ejb-name>");
            // WildFly resolves ${env...} in descriptors only: on the annotation the resource adapter's 15 sessions applied
            assertThat(java.util.Arrays.asList(ejb.split("<message-driven>")).subList(1, 3)).allSatisfy(bean -> assertThat(bean)
                    .contains("<activation-config-property-name>maxSession</activation-config-property-name>")
                    .contains("${env.MAILROOM_CONSUMERS:4}"));
            assertThat(ejb.split("<message-driven>")).hasSize(3);
            // Hibernate reads the create script one statement a line (its default single-line extractor)
            String sql = new String(jar.getInputStream(jar.getEntry("WEB-INF/classes/META-INF/naive-create.sql"))
                    .readAllBytes());
            assertThat(sql.lines().filter(l -> !l.isBlank()))
                    .allMatch(l -> l.startsWith("create table if not exists "))
                    .anyMatch(l -> l.contains(" guarded_job ")).anyMatch(l -> l.contains(" guarded_attempt "));
        }
    }

    @Test
    void theCountServletsAnswerIsReadAsNumbers() {
        assertThat(SendBench.counts("600 600 600 600\n")).containsExactly(600, 600, 600, 600);
        assertThat(SendBench.counts("12 11")).containsExactly(12, 11);
        assertThatThrownBy(() -> SendBench.counts(" ")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void everyFigureOfAPlainBeanMustCountEachJobOnce() {
        // the run's prefix includes the warm-up's ids: 60 warm-up + 600 measured
        assertThat(SendBench.countProblem(SendBench.PlainBean.GUARDED, new long[] {660, 660, 660, 660},
                new long[] {60, 60, 60, 60}, 600, 60)).isNull();
        assertThat(SendBench.countProblem(SendBench.PlainBean.NAIVE, new long[] {660, 660}, new long[] {60, 60}, 600, 60))
                .isNull();
        // a second attempt for one job, one job not accepted, a warm-up job lost, an answer of the wrong shape
        assertThat(SendBench.countProblem(SendBench.PlainBean.GUARDED, new long[] {660, 660, 661, 660},
                new long[] {60, 60, 60, 60}, 600, 60)).contains("guarded_attempt rows").contains("[600, 600, 601, 600]");
        assertThat(SendBench.countProblem(SendBench.PlainBean.GUARDED, new long[] {660, 659, 660, 659},
                new long[] {60, 60, 60, 60}, 600, 60)).contains("[600, 599, 600, 599]");
        assertThat(SendBench.countProblem(SendBench.PlainBean.NAIVE, new long[] {659, 659}, new long[] {59, 59}, 600, 60))
                .contains("naive_mail rows").contains("warm-up [59, 59]");
        assertThat(SendBench.countProblem(SendBench.PlainBean.GUARDED, new long[] {660, 660}, new long[] {60, 60, 60, 60},
                600, 60)).isNotNull();
        assertThat(SendBench.countProblem(SendBench.PlainBean.NAIVE, new long[0], new long[0], 600, 60)).isNotNull();
    }

    @Test
    void twoRunsOfABeanCombineIntoTheRateOfBothTogetherAndTheirMeanCpu() {
        // 600 jobs in 3 s and 600 in 5 s: 1,200 in 8 s
        SendBench.Result both = SendBench.Result.combined(new SendBench.Result(200, 4.0, 15),
                new SendBench.Result(120, 6.0, 16));

        assertThat(both.rate()).isCloseTo(150, within(1e-9));
        assertThat(both.cpuMs()).isCloseTo(5.0, within(1e-9));
        assertThat(both.peakAtProvider()).isEqualTo(16);
        assertThat(SendBench.Result.combined(new SendBench.Result(100, 1, -1), new SendBench.Result(100, 1, -1))
                .peakAtProvider()).isEqualTo(-1);
    }

    private static final List<SendBench.Point> POINTS = List.of(
            new SendBench.Point(SendBench.H2, "sandbox", 0, 4, new SendBench.Result(97, 19.54, -1),
                    new SendBench.Result(333, 4.44, -1), new SendBench.Result(194, 8.0, -1)),
            new SendBench.Point(SendBench.POSTGRESQL, "http 50 ms", 50, 16, new SendBench.Result(120, 13.8, 15),
                    new SendBench.Result(300, 4.0, 16), new SendBench.Result(240, 6.3, 16)));

    @Test
    void theOlderSummaryLinesKeepTheirFormAndTheGuardedBeansFollowThem() {
        List<String> lines = SendBench.summaryLines(POINTS, List.of("Throughput / ceiling, http 50 ms, 16 consumers, "
                + "PostgreSQL: 0.38"));

        assertThat(lines).containsExactly(
                "CPU per job, sandbox, 4 consumers, H2: 19.5",
                "CPU per job, http 50 ms, 16 consumers, PostgreSQL: 13.8",
                "Mailroom / naive MDB, sandbox, 4 consumers, H2: 0.29",
                "Mailroom / naive MDB, http 50 ms, 16 consumers, PostgreSQL: 0.40",
                "Throughput / ceiling, http 50 ms, 16 consumers, PostgreSQL: 0.38",
                "CPU per job, naive MDB, sandbox, 4 consumers, H2: 4.4",
                "CPU per job, naive MDB, http 50 ms, 16 consumers, PostgreSQL: 4.0",
                "CPU per job, guarded MDB, sandbox, 4 consumers, H2: 8.0",
                "CPU per job, guarded MDB, http 50 ms, 16 consumers, PostgreSQL: 6.3",
                "Guarded MDB / naive MDB, sandbox, 4 consumers, H2: 0.58",
                "Guarded MDB / naive MDB, http 50 ms, 16 consumers, PostgreSQL: 0.80",
                "Mailroom / guarded MDB, sandbox, 4 consumers, H2: 0.50",
                "Mailroom / guarded MDB, http 50 ms, 16 consumers, PostgreSQL: 0.50");
    }

    @Test
    void theTableShowsTheThreeBeansSideBySide() {
        List<String> table = SendBench.tableRows(POINTS).lines().toList();

        assertThat(table).hasSize(4);
        assertThat(table.get(0)).contains("jobs/s Mailroom / naive / guarded").contains("guarded / naive");
        assertThat(table.get(2)).isEqualTo("| sandbox | 4 | H2 | 97 / 333 / 194 | 0.29 | 0.58 | 0.50 | 19.5 / 4.4 / 8.0 | - |");
        assertThat(table.get(3)).isEqualTo(
                "| http 50 ms | 16 | PostgreSQL | 120 / 300 / 240 | 0.40 | 0.80 | 0.50 | 13.8 / 4.0 / 6.3 | 15 / 16 / 16 |");
    }

    @Test
    void theChartIsAPngWithAPanelPerProvider(@TempDir Path dir) throws Exception {
        SendBench.Result r = new SendBench.Result(50, 20, 4);
        List<SendBench.Point> points = List.of(
                new SendBench.Point(SendBench.H2, "sandbox", 0, 4, r, new SendBench.Result(100, 5, -1),
                        new SendBench.Result(80, 9, -1)),
                new SendBench.Point(SendBench.H2, "sandbox", 0, 8, r, r, r),
                new SendBench.Point(SendBench.POSTGRESQL, "http 50 ms", 50, 16, r, r, r));

        SendChart.write(dir.resolve("chart.png"), points, "test");

        BufferedImage image = ImageIO.read(dir.resolve("chart.png").toFile());
        assertThat(image.getWidth()).isEqualTo(2 * 560);
        assertThat(image.getHeight()).isEqualTo(460);
    }

    @Test
    void theRetentionCounterIsReadByKindFromThePrometheusPage() {
        String page = """
                # TYPE mailroom_jobs_retention_removed_total counter
                mailroom_jobs_retention_removed_total{kind="job"} 1500.0
                mailroom_jobs_retention_removed_total{kind="timeline",node="a"} 5900.0
                mailroom_jobs_total{outcome="sent_to_provider",queue="mail.send"} 12.0
                """;

        assertThat(RetentionPurge.removed(page)).containsExactly(java.util.Map.entry("job", 1500L),
                java.util.Map.entry("timeline", 5900L));
    }

    @Test
    void theHistoryLinesAreRatiosOfTheSameRunOnEmptyAndSeededDatabases() {
        // the empty database before (100 jobs/s) and after (a loaded machine: 100 / 3 jobs/s): 50 jobs/s together
        SendBench.Result emptyFirst = new SendBench.Result(100, 18.0, -1, 3.0);
        SendBench.Result emptyLast = new SendBench.Result(100.0 / 3, 22.0, -1, 5.0);
        SendBench.Result full = new SendBench.Result(45, 22.0, -1, 5.0);
        SendBench.Result after = new SendBench.Result(45, 24.0, -1, 5.0);
        RetentionPurge.Observed purge = new RetentionPurge.Observed(new SendBench.Result(40.5, 24.0, -1, 9.0),
                java.util.Map.of("job", 100_000L, "attempt", 102_000L, "recipient", 120_000L, "timeline", 378_000L,
                        "claim", 0L), 200, 300_000, 0, null);

        List<String> lines = HistoryFigure.summaryLines(new HistoryFigure.Figures(SendBench.POSTGRESQL, 4, 1_000_000,
                emptyFirst, emptyLast, full, after, purge));

        assertThat(lines).containsExactly(
                "CPU per job, 1M history / empty, PostgreSQL: 1.10",
                "Database CPU per job, 1M history / empty, PostgreSQL: 1.25",
                "Jobs/s, 1M history / empty, PostgreSQL: 0.90",
                "Retention purge, 1M history, PostgreSQL: 3500 rows/s (500 jobs/s)",
                "Sending during retention's purge / without, sandbox, 4 consumers, PostgreSQL: 0.90");
        assertThat(HistoryFigure.size(250_000)).isEqualTo("250k");
        assertThat(HistoryFigure.size(1234)).isEqualTo("1234");
    }
}
