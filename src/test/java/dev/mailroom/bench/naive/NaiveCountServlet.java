package dev.mailroom.bench.naive;

import java.io.IOException;
import java.util.List;

import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * How the benchmark checks that a plain bean handled every message exactly once, for the message ids starting with
 * {@code prefix}. {@code GET /naive-mdb/count?prefix=<p>} answers {@code <rows> <distinct message ids>} of naive_mail;
 * {@code GET /naive-mdb/count?bean=guarded&prefix=<p>} answers {@code <jobs> <accepted jobs> <attempts> <accepted
 * attempts>} of the guarded bean's tables. Every figure must equal the number of jobs sent.
 */
@WebServlet("/count")
public class NaiveCountServlet extends HttpServlet {

    @PersistenceContext(unitName = "naive")
    EntityManager em;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String like = req.getParameter("prefix") + "%";
        List<Object> counts;
        if ("guarded".equals(req.getParameter("bean"))) {
            Object[] jobs = (Object[]) em.createNativeQuery("select count(*), count(case when state = 'accepted' "
                    + "then 1 end) from guarded_job where message_id like ?1").setParameter(1, like).getSingleResult();
            Object[] attempts = (Object[]) em.createNativeQuery("select count(*), count(case when outcome = 'accepted' "
                    + "then 1 end) from guarded_attempt where message_id like ?1").setParameter(1, like).getSingleResult();
            counts = List.of(jobs[0], jobs[1], attempts[0], attempts[1]);
        } else {
            Object[] rows = (Object[]) em.createQuery(
                            "select count(m), count(distinct m.messageId) from NaiveMail m where m.messageId like :p")
                    .setParameter("p", like).getSingleResult();
            counts = List.of(rows);
        }
        resp.setContentType("text/plain");
        StringBuilder out = new StringBuilder();
        for (Object c : counts) {
            out.append(out.length() == 0 ? "" : " ").append(c);
        }
        resp.getWriter().print(out);
    }
}
