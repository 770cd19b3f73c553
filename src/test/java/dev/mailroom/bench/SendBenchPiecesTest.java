package dev.mailroom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Collectors;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The benchmark's own pieces that need no server: the naive queue's configuration, its WAR, the chart. */
class SendBenchPiecesTest {

    private static final String XML = """
                <server>
                    <external-jms-queue name="mail.send" entries="java:/jms/queue/mail.send" enable-amq1-prefix="false"/>
                    <address-setting name="mail.send" dead-letter-address="DLQ.mail.send" max-delivery-attempts="5"/>
                    <address-setting name="DLQ.mail.send" auto-create-queues="true"/>
                </server>
            """;

    @Test
    void theNaiveQueueGetsMailSendsSettingsWithItsOwnDlq() {
        String xml = SendBench.withNaiveQueue(XML);

        assertThat(xml).contains("<external-jms-queue name=\"bench.naive\" entries=\"java:/jms/queue/bench.naive\" "
                + "enable-amq1-prefix=\"false\"/>");
        assertThat(xml).contains("<address-setting name=\"bench.naive\" dead-letter-address=\"DLQ.bench.naive\" "
                + "max-delivery-attempts=\"5\"/>");
        assertThat(xml).contains("<address-setting name=\"mail.send\" dead-letter-address=\"DLQ.mail.send\"");
    }

    @Test
    void aConfigurationWithoutMailSendIsRefused() {
        assertThatThrownBy(() -> SendBench.withNaiveQueue("<server/>")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theNaiveWarHoldsTheBeanAndItsDescriptorsOnly(@TempDir Path dir) throws Exception {
        Path war = NaiveWar.build(dir.resolve("naive-mdb.war"));

        try (JarFile jar = new JarFile(war.toFile())) {
            List<String> names = jar.stream().map(e -> e.getName()).collect(Collectors.toList());
            assertThat(names).contains("WEB-INF/classes/dev/mailroom/bench/naive/NaiveSendConsumer.class",
                    "WEB-INF/classes/dev/mailroom/bench/naive/NaiveMail.class",
                    "WEB-INF/classes/META-INF/persistence.xml", "WEB-INF/jboss-ejb3.xml");
            assertThat(names).noneMatch(n -> n.contains("dev/mailroom/") && !n.contains("dev/mailroom/bench/naive/"));
        }
    }

    @Test
    void theChartIsAPngWithAPanelPerProvider(@TempDir Path dir) throws Exception {
        SendBench.Result r = new SendBench.Result(50, 20, 4);
        List<SendBench.Point> points = List.of(
                new SendBench.Point(SendBench.H2, "sandbox", 0, 4, r, new SendBench.Result(100, 5, -1)),
                new SendBench.Point(SendBench.H2, "sandbox", 0, 8, r, r),
                new SendBench.Point(SendBench.POSTGRESQL, "http 50 ms", 50, 16, r, r));

        SendChart.write(dir.resolve("chart.png"), points, "test");

        BufferedImage image = ImageIO.read(dir.resolve("chart.png").toFile());
        assertThat(image.getWidth()).isEqualTo(2 * 560);
        assertThat(image.getHeight()).isEqualTo(460);
    }
}
