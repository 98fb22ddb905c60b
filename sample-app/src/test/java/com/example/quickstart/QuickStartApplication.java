package com.example.quickstart;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The application around the quick start's service: scheduling is on, for the nightly
 * report. Not shown in the README (any Boot application class does).
 */
@SpringBootApplication
@EnableScheduling
class QuickStartApplication {

}
