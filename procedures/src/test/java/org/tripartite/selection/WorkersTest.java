package org.tripartite.selection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.neo4j.graphdb.TransactionTerminatedException;
import org.neo4j.kernel.api.exceptions.Status;
import org.neo4j.procedure.TerminationGuard;

class WorkersTest {
    private static final TerminationGuard NEVER = () -> { };

    @Test
    void resultsComeInTheItemsOrderAsASequentialRunsWould() {
        List<Integer> items = IntStream.range(0, 500).boxed().toList();
        try (Workers workers = new Workers(items.size(), 4, NEVER)) {
            List<Integer> got = workers.map(items, i -> {
                if (i % 7 == 0) {
                    Thread.yield();
                }
                return i * i;
            });
            assertEquals(items.stream().map(i -> i * i).toList(), got);
        }
    }

    @Test
    void neverMoreThreadsThanProcessorsOrTasksAndNeverTheCommonPool() throws InterruptedException {
        Set<Thread> seen = ConcurrentHashMap.newKeySet();
        AtomicBoolean onForkJoin = new AtomicBoolean();
        try (Workers workers = new Workers(100, 3, NEVER)) {
            assertEquals(3, workers.threads());
            workers.map(IntStream.range(0, 100).boxed().toList(), i -> {
                seen.add(Thread.currentThread());
                onForkJoin.compareAndSet(false, ForkJoinTask.inForkJoinPool());
                return i;
            });
        }
        assertTrue(seen.size() <= 3, seen.size() + " threads");
        assertFalse(onForkJoin.get());
        assertTrue(seen.stream().allMatch(t -> t.getName().startsWith("tripartite-selection-") && t.isDaemon()));
        for (Thread thread : seen) {  // closed: each thread ends (its last steps may follow close() by a moment)
            thread.join(5_000);
            assertFalse(thread.isAlive(), thread.getName());
        }
        try (Workers few = new Workers(2, 64, NEVER)) {
            assertEquals(2, few.threads());
        }
        try (Workers none = new Workers(0, 8, NEVER)) {
            assertEquals(1, none.threads());
            assertEquals(List.of(), none.map(List.of(), i -> i));
        }
    }

    @Test
    void theFirstFailureInTheItemsOrderIsRethrownAsItWas() {
        IllegalArgumentException first = new IllegalArgumentException("first");
        try (Workers workers = new Workers(8, 4, NEVER)) {
            IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class,
                    () -> workers.map(IntStream.range(0, 50).boxed().toList(), i -> {
                        if (i == 10) {
                            throw first;
                        }
                        if (i == 30) {
                            throw new IllegalStateException("later");
                        }
                        return i;
                    }));
            assertSame(first, thrown);
        }
    }

    @Test
    void aTerminatedTransactionStopsEveryWorkerWithinALoopStep() throws Exception {
        AtomicBoolean terminated = new AtomicBoolean();
        TerminationGuard guard = () -> {
            if (terminated.get()) {
                throw new TransactionTerminatedException(Status.Transaction.Terminated);
            }
        };
        AtomicInteger running = new AtomicInteger();
        Thread stopper = new Thread(() -> {
            while (running.get() < 2) {
                Thread.onSpinWait();
            }
            terminated.set(true);
        });
        stopper.start();
        long started = System.nanoTime();
        try (Workers workers = new Workers(4, 2, guard)) {
            assertThrows(TransactionTerminatedException.class, () -> workers.map(List.of(1, 2, 3, 4), item -> {
                running.incrementAndGet();
                while (true) {  // a loop that would never end, but for the check
                    workers.check();
                }
            }));
        }
        stopper.join();
        assertTrue(System.nanoTime() - started < 10_000_000_000L);
    }

    @Test
    void afterAFailureTheOtherTasksStopAtTheirNextCheck() {
        AtomicInteger stopped = new AtomicInteger();
        try (Workers workers = new Workers(3, 3, NEVER)) {
            assertThrows(IllegalStateException.class, () -> workers.map(List.of(0, 1, 2), item -> {
                if (item == 0) {
                    sleep(50);
                    throw new IllegalStateException("failed");
                }
                try {
                    while (true) {
                        workers.check();
                    }
                } finally {
                    stopped.incrementAndGet();
                }
            }));
        }
        assertEquals(2, stopped.get());
    }

    @Test
    void slicesSplitTheItemsEvenlyAndCoverThemOnce() {
        assertEquals(List.of(), Workers.slices(0, 4));
        for (int size : new int[] {1, 3, 7, 100, 1001}) {
            for (int parts : new int[] {1, 2, 4, 8, 16}) {
                List<int[]> slices = Workers.slices(size, parts);
                assertTrue(slices.size() <= parts);
                List<Integer> covered = new ArrayList<>();
                int smallest = Integer.MAX_VALUE, largest = 0;
                for (int[] slice : slices) {
                    IntStream.range(slice[0], slice[1]).forEach(covered::add);
                    smallest = Math.min(smallest, slice[1] - slice[0]);
                    largest = Math.max(largest, slice[1] - slice[0]);
                }
                assertEquals(IntStream.range(0, size).boxed().toList(), covered);
                assertTrue(largest - smallest <= 1, size + " in " + parts);
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
