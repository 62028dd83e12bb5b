/*
 * report_page.h - the style sheet and script of the report's page
 * (render_report.c).
 */
#ifndef REPORT_PAGE_H
#define REPORT_PAGE_H

extern const char report_style[];
extern const char report_script[];

#endif
