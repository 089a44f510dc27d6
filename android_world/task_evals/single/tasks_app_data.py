"""Upstream's Tasks-app question pools (`information_retrieval/proto/tasks.textproto`) and the
noise tasks of `task_app_utils` (title -> notes)."""

from __future__ import annotations

from android_world.task_evals import upstream_pools

WORK_TITLES = (
    "Complete project proposal",
    "Review code changes",
    "Schedule team meeting",
    "Submit expense report",
    "Update website content",
    "Review quarterly goals",
    "Organize files and folders",
    "Draft marketing email",
    "Attend networking event",
    "Prepare presentation for meeting",
    "Call client for follow-up",
    "Research market trends",
    "Follow up on support tickets",
    "Prepare agenda for weekly meeting",
    "Book flights for conference",
    "Plan team outing",
    "Participate in brainstorming session",
    "Review performance metrics",
    "Attend training session",
    "Send report to manager",
)
# The later questions add five personal tasks to the work ones.
ALL_TITLES = (
    *WORK_TITLES,
    "Dinner with friends",
    "Organize movie night",
    "Exercise session with coach",
    "Read book for book club",
    "Plan family reunion",
)
HIGH_PRIORITY_TITLES = (
    "Project Milestone Review",
    "Submit Budget Report",
    "Proposal Draft Submission",
    "Team Sync-Up Meeting",
    "Client Feedback Session",
    "Code Review",
    "Marketing Campaign Launch",
    "Product Design Review",
    "Stakeholder Update Meeting",
    "Quarterly Sales Review",
)
WORK_NOTES = (
    "Remember to complete this task.",
    "This task is important.",
    "Don't forget to follow up on this task.",
    "Double-check calculations.",
    "Confirm meeting location.",
    "Follow up with team members.",
    "Prepare presentation slides.",
    "Update project status.",
    "Check email for updates.",
    "Review feedback from client.",
    "Complete paperwork.",
    "Schedule follow-up meeting.",
)
OTHER_NOTES = (
    "This is high priority.",
    "This is urgent.",
    "Remember to review ahead of time.",
    "Double-check details.",
    "Schedule time on calendar.",
    "Follow up with others.",
    "Send emails to everyone.",
    "Send an update.",
    "Monitor email for updates on this.",
    "Check handwritten notes.",
    "Complete survey.",
    "Schedule follow-up tasks.",
)
TIMES = upstream_pools.IR_TIMES
HIGH_PRIORITY_TIMES = (
    "5:00pm",
    "12:00pm",
    "8:00am",
    "11:59pm",
    "2:00pm",
    "9:00am",
    "3:30pm",
    "10:00am",
    "4:45pm",
    "7:00pm",
)
# The same importance twice each, as upstream lists them (it draws without replacement).
DOUBLED_IMPORTANCE = ("0", "0", "1", "1", "2", "2", "3", "3")
IMPORTANCE = ("0", "1", "2", "3")

# Noise tasks: upstream's `_TASKS`. Its first note has a tab where "Don't" has its apostrophe
# ("Don\t forget"); kept, so a seed writes upstream's rows.
NOISE_TASKS: dict[str, str] = {
    "Grocery Shopping": (
        "Don\t forget milk, eggs, and bread. Also need to pick up snacks for the kids."
    ),
    "Finish Project Proposal": "Deadline is Friday. Need to finalize budget and timeline sections.",
    "Schedule Dentist Appointment": "Teeth cleaning overdue. Call Dr. Smith's office.",
    "Water Plants": "Check moisture level before watering. Fertilize succulents.",
    "Meal Prep for the Week": (
        "Make a grocery list based on planned meals. Cook chicken and chop veggies on Sunday."
    ),
    "Research Vacation Destinations": (
        "Looking for beach destinations with family-friendly activities."
    ),
    "Read 'The Martian'": "Started last week. Aim to finish by next weekend.",
    "Call Grandma": "Catch up on family news. Ask for her famous cookie recipe.",
    "Change Air Filter": "Last changed 3 months ago. Buy a new filter at the hardware store.",
    "Brainstorm Blog Post Ideas": "Need 5 new topics for the next month's content calendar.",
    "Renew Driver's License": "Expires next month. Check DMV website for requirements.",
    "Organize Closet": "Donate old clothes and shoes. Put winter clothes in storage.",
    "Submit Expense Report": "Deadline is Wednesday. Attach receipts for all purchases.",
    "Attend Team Meeting": "Agenda includes project updates and brainstorming new initiatives.",
    "Learn to Play Guitar": "Practice chords for 30 minutes every day. Find online tutorials.",
    "Reply to Emails": (
        "Inbox is overflowing. Prioritize urgent messages and unsubscribe from unwanted lists."
    ),
    "Clean Out Fridge": "Check expiration dates and discard old food. Wipe down shelves.",
    "Create Budget for Next Month": "Track income and expenses. Set savings goals.",
    "Back Up Computer Files": "Use external hard drive or cloud storage. Schedule regular backups.",
    "Take Dog to the Vet": "Annual checkup and vaccinations due.",
}
