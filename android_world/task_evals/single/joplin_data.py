"""Upstream's Joplin noise notes (`information_retrieval/joplin_app_utils.py`), as data.

Upstream sets up a Joplin question with 100 random notes beside the question's own: a notebook,
then a note of that notebook's list (order kept: it fixes what a seed draws). Ten meeting notes
list attendees and action items upstream samples when its module is imported, from the unseeded
generator (so they differ from run to run there); here each is sampled once from a generator
seeded with the note's title, so a seed sets up the same phone every time.
"""

from __future__ import annotations

import random

ATTENDEES: tuple[str, ...] = (
    "Emily",
    "John",
    "Sarah",
    "David",
    "Ava",
    "Michael",
    "Jessica",
    "Joshua",
)
ACTION_ITEMS: tuple[str, ...] = (
    "Follow up with client on proposal",
    "Draft project timeline",
    "Research market trends",
    "Schedule team check-in",
    "Create design mockups",
    "Update website content",
    "Review budget report",
    "Send out meeting follow-up email",
    "Conduct user testing",
    "Finalize presentation materials",
    "Order supplies for event",
    "Coordinate with external vendors",
    "Submit reimbursement requests",
)


def _meeting(title: str, attendees: int, agenda: str, actions: int) -> tuple[str, str]:
    """A meeting note upstream samples at import: its attendees, agenda and action items."""
    rng = random.Random(title)
    people = "\n".join(rng.sample(ATTENDEES, attendees))
    items = "\n".join(rng.sample(ACTION_ITEMS, actions))
    return title, f"Attendees:\n{people}\n{agenda}\n{items}"


NOTEBOOKS: dict[str, tuple[tuple[str, str], ...]] = {
    "Recipes": (
        (
            "Zesty Quinoa Salad",
            "Ingredients:\nCooked quinoa, chopped cucumber, diced tomato, crumbled feta cheese, lemon vinaigrette\nInstructions:\nToss ingredients together. Season to taste.",
        ),
        (
            "Peanut Butter Power Smoothie",
            "Ingredients:\nPeanut butter, banana, milk of choice, protein powder, ice\nInstructions:\nBlend until smooth and creamy.",
        ),
        (
            "Cheesy Veggie Scramble",
            "Ingredients:\nEggs, shredded cheese, diced bell pepper, chopped spinach, hot sauce (optional)\nInstructions:\nSauté peppers and spinach. Whisk eggs with cheese, add to pan, and scramble. Top with hot sauce if desired.",
        ),
        (
            "Tuna Salad Surprise",
            "Ingredients:\nCanned tuna, celery, mayonnaise, relish, crackers or bread\nInstructions:\nMix tuna, celery, mayonnaise, and relish. Serve on crackers or bread.",
        ),
        (
            "Spicy Black Bean Wrap",
            "Ingredients:\nBlack beans, salsa, shredded cheese, avocado, tortilla\nInstructions:\nWarm beans, top tortilla with beans, salsa, cheese, and avocado.",
        ),
        (
            "Fruity Yogurt Parfait",
            "Ingredients:\nGreek yogurt, granola, mixed berries\nInstructions:\nLayer yogurt, granola, and berries in a glass or jar.",
        ),
        (
            "Sweet Potato Hash",
            "Ingredients:\nDiced sweet potato, onion, breakfast sausage (optional), seasoning\nInstructions:\nCook sweet potatoes and onion until tender. Add sausage if desired. Season to taste.",
        ),
        (
            "Hummus and Veggie Delight",
            "Ingredients:\nHummus, pita bread, cucumber slices, carrot sticks\nInstructions:\nSpread hummus on pita, top with cucumbers and carrots.",
        ),
        (
            "Creamy Tomato Soup",
            "Ingredients:\nCanned tomatoes, heavy cream, basil, grilled cheese sandwich (for dipping)\nInstructions:\nBlend tomatoes and cream, heat gently. Season with basil. Serve with grilled cheese for dipping.",
        ),
        (
            "Apple Cinnamon Overnight Oats",
            "Ingredients:\nRolled oats, milk of choice, grated apple, cinnamon, pinch of brown sugar\nInstructions:\nCombine oats, milk, apple, cinnamon, and brown sugar. Refrigerate overnight.",
        ),
        (
            "Chicken Tikka Masala",
            "Marinated chicken cooked in a creamy tomato sauce with aromatic spices.",
        ),
        (
            "Chocolate Chip Cookies",
            "Classic recipe for chewy cookies with chocolate chips and a hint of vanilla.",
        ),
        (
            "Beef Stir-Fry",
            "Quick and easy stir-fry with tenderbeef, colorful vegetables, and a savory sauce.",
        ),
        (
            "Vegetarian Chili",
            "Hearty chili packed with beans, vegetables, and spices, perfect for a cold day.",
        ),
        (
            "Salmon with Roasted Vegetables",
            "Healthy and flavorful dish with baked salmon and seasonal vegetables.",
        ),
        (
            "Homemade Pizza",
            "Pizza dough recipe, sauce options, topping ideas for a customizable pizza night.",
        ),
        (
            "Pasta Carbonara",
            "Creamy pasta dish with pancetta, eggs, Parmesan cheese, and black pepper.",
        ),
        (
            "Pad Thai",
            "Stir-fried rice noodles with tofu or shrimp, eggs, bean sprouts, and a tangy sauce.",
        ),
        (
            "Chicken Pot Pie",
            "Comforting pie filled with chicken, vegetables, and creamy sauce, topped with flaky crust.",
        ),
        (
            "Shrimp Scampi",
            "Garlic butter shrimp with pasta, lemon juice, white wine, and fresh herbs.",
        ),
        (
            "French Onion Soup",
            "Rich and flavorful soup with caramelized onions, beef broth, and crusty bread topped with melted cheese.",
        ),
        (
            "Vegetable Curry",
            "Aromatic curry with a variety of vegetables, coconut milk, and spices.",
        ),
        (
            "Quinoa Salad",
            "Healthy and refreshing salad with quinoa, vegetables, herbs, and a lemon vinaigrette.",
        ),
        (
            "Banana Bread",
            "Moist and flavorful bread made with ripe bananas, perfect for breakfast or a snack.",
        ),
        (
            "Breakfast Burritos",
            "Scrambled eggs, sausage, cheese, and vegetables wrapped in a warm tortilla.",
        ),
        (
            "Chocolate Mousse",
            "Decadent dessert made with chocolate, eggs, and cream, perfect for a special occasion.",
        ),
        (
            "Apple Pie",
            "Classic American dessert with a flaky crust filled with sweet and tart apples.",
        ),
        ("Brownies", "Fudgy or cakey brownies with chocolate chips or nuts."),
        ("Pancakes", "Fluffy pancakes topped with butter, maple syrup, and fresh fruit."),
        (
            "Smoothie Recipes",
            "Various combinations of fruits, vegetables, yogurt, and protein powder for healthy and refreshing smoothies.",
        ),
    ),
    "Tasks": (
        (
            "Morning Routine",
            "Tasks:\nMake bed\nShower and get dressed\nHealthy breakfast\nReview daily schedule",
        ),
        (
            "Website Updates",
            "Tasks:\nAdd new product photos\nUpdate contact form\nFix broken link on About page\nRun website speed test",
        ),
        (
            "Grocery Trip",
            "Tasks:\nCheck pantry staples\nMake a list of needed items\nRemember reusable bags\nCheck for coupons or deals",
        ),
        (
            "Travel Packing",
            "Tasks:\nCheck weather forecast\nChoose outfits and pack\nGather toiletries and essentials\nPrint travel documents",
        ),
        (
            "Apartment Cleanup",
            "Tasks:\nDo the dishes\nVacuum floors\nTidy living room\nTake out the trash",
        ),
        (
            "Project Brainstorm",
            "Tasks:\nDefine project goals\nFree-write potential ideas\nCreate a mind map\nIdentify next steps",
        ),
        (
            "Email Inbox Zero",
            "Tasks:\nDelete junk mail\nRespond to urgent emails\nOrganize important emails into folders\nUnsubscribe from unwanted lists",
        ),
        (
            "Workout Routine",
            "Tasks:\n5-minute warmup\n30 minutes cardio\nStrength training\nCool-down and stretching",
        ),
        (
            "Meal Planning",
            "Tasks:\nChoose recipes for the week\nMake a grocery list\nPrep ingredients if possible\nPlan for leftovers",
        ),
        (
            "Relax and Recharge",
            "Tasks:\nRead a book\nTake a relaxing bath\nListen to calming music\nGo for an evening walk",
        ),
        (
            "Grocery Shopping",
            "- Milk, eggs, bread \n- Fruits and vegetables \n- Chicken breast \n- Pasta \n- Toilet paper",
        ),
        (
            "Pay Bills",
            "- Electricity bill due May 15th \n- Internet bill due May 20th \n- Credit card payment due May 25th",
        ),
        (
            "Schedule Doctor's Appointment",
            "Call Dr. Smith's office to schedule a check-up for next week.",
        ),
        (
            "Email Project Update to Client",
            "Send a summary of project progress and next steps to Acme Corp. by EOD.",
        ),
        (
            "Finish Presentation Slides for Team Meeting",
            "Complete slides on Q2 marketing strategy by Tuesday morning.",
        ),
        (
            "Book Flight for Summer Vacation",
            "Research and book round-trip flights to Hawaii for July.",
        ),
        (
            "Renew Driver's License",
            "Visit the DMV to renew driver's license before it expires next month.",
        ),
        (
            "Research Summer Camps for Kids",
            "Find options for summer camps that align with kids' interests and ages.",
        ),
        (
            "Meal Prep for the Week",
            "Cook a large batch of chicken and vegetables for lunches and dinners.",
        ),
        (
            "Clean Out Garage",
            "Sort through items, donate unwanted items, organize remaining items.",
        ),
        (
            "Write Thank You Notes for Wedding Gifts",
            "Send personalized thank you notes to all wedding guests.",
        ),
        ("Call Mom for Her Birthday", "Wish Mom a happy birthday and catch up."),
        (
            "Schedule Oil Change for Car",
            "Make an appointment with the mechanic for an oil change and tire rotation.",
        ),
        ("Research New Laptop", "Compare features, prices, and reviews of different laptops."),
        (
            "Plant Vegetable Garden",
            "Buy seeds or seedlings, prepare soil, plant vegetables in raised beds.",
        ),
        (
            "Organize Closet",
            "Declutter clothes, donate or sell unwanted items, rearrange remaining clothes.",
        ),
        ("File Taxes", "Gather tax documents, complete tax return, submit online or by mail."),
        (
            "Plan Weekend Getaway",
            "Research destinations, book accommodations, plan activities for a short trip.",
        ),
        (
            "Learn New Skill",
            "Enroll in online course or workshop on photography, coding, or language learning.",
        ),
        (
            "Set Up Retirement Account",
            "Open a Roth IRA or 401(k) and start contributing to retirement savings.",
        ),
    ),
    "Meeting Notes": (
        (
            "Team Meeting - May 6, 2024",
            "Agenda, discussion points, action items, decisions made, next steps.",
        ),
        (
            "Client Meeting - Acme Corp. - April 25, 2024",
            "Attendees, project updates, feedback, next steps, action items.",
        ),
        (
            "Brainstorming Session - New Product Ideas - April 18, 2024",
            "Generated ideas, pros and cons, feasibility assessment, next steps.",
        ),
        (
            "Project Kickoff Meeting - Website Redesign - April 10, 2024",
            "Project scope, timeline, team roles, communication plan, budget.",
        ),
        (
            "One-on-One Meeting with John - April 3, 2024",
            "Performance feedback, career goals discussion, development opportunities.",
        ),
        (
            "Board Meeting - Q1 Financial Results - March 28, 2024",
            "Financial report review, key performance indicators, budget discussion, future outlook.",
        ),
        (
            "Weekly Team Update - March 21, 2024",
            "Progress updates on individual tasks, roadblocks, upcoming deadlines, team collaboration.",
        ),
        (
            "Client Presentation - Proposal Review - March 14, 2024",
            "Proposal summary, client feedback, questions, revisions needed, next steps.",
        ),
        (
            "Training Session - New Software - March 7, 2024",
            "Key features, how-to guide, troubleshooting tips, Q&A session.",
        ),
        (
            "Conference Call - Remote Team - February 28, 2024",
            "Agenda, discussion points, action items for remote team collaboration and communication.",
        ),
        (
            "Performance Review Meeting - Sarah - February 21, 2024",
            "Strengths, areas for improvement, goals for next quarter, development plan.",
        ),
        (
            "Departmental Budget Meeting - February 14, 2024",
            "Budget review, cost-cutting measures, resource allocation, approval process.",
        ),
        (
            "All-Hands Meeting - Company Update - February 7, 2024",
            "CEO presentation on company performance, new initiatives, Q&A session.",
        ),
        (
            "Client Feedback Session - Project X - January 31, 2024",
            "Gathering feedback from client on project X, addressing concerns, identifying improvements.",
        ),
        (
            "Strategic Planning Meeting - January 24, 2024",
            "Defining long-term goals, SWOT analysis, strategy development, implementation plan.",
        ),
        (
            "Team Building Workshop - January 17, 2024",
            "Activities and exercises to improve communication, collaboration, and trust among team members.",
        ),
        (
            "New Hire Orientation - January 10, 2024",
            "Welcome new employees, introduce company culture, provide onboarding information.",
        ),
        (
            "Annual Performance Review - Self-Assessment - December 2023",
            "Reflect on accomplishments, challenges, areas for growth, goals for the coming year.",
        ),
        (
            "Holiday Party Planning Meeting - December 2023",
            "Venue selection, catering options, entertainment, budget, decorations, guest list.",
        ),
        (
            "Year-End Review Meeting - December 2023",
            "Summary of company performance, achievements, challenges, goals for the next year.",
        ),
        _meeting(
            "Project Kickoff",
            3,
            "Agenda:\nProject scope and objectives\nTimeline and milestones\nRoles and responsibilities\nAction Items:",
            3,
        ),
        _meeting(
            "Marketing Strategy Brainstorm",
            2,
            "Agenda:\nTarget audience analysis\nCampaign ideas\nBudget considerations\nAction Items:",
            2,
        ),
        _meeting(
            "Website Redesign Review",
            4,
            "Agenda:\nReview proposed wireframes\nDiscuss content updates\nFeedback on user experience\nAction Items:",
            4,
        ),
        _meeting(
            "Quarterly Sales Meeting",
            3,
            "Agenda:\nSales performance review\nNew product launch updates\nMarket analysis\nAction Items:",
            2,
        ),
        _meeting(
            "Team Building Workshop",
            3,
            "Agenda:\nTeam challenges discussion\nCommunication exercises\nGoal-setting activities\nAction Items:",
            2,
        ),
        _meeting(
            "Client Project Update",
            3,
            "Agenda:\nProject progress status\nChallenges and solutions\nBudget review\nAction Items:",
            2,
        ),
        _meeting(
            "HR Policy Review",
            4,
            "Agenda:\nReview updates to vacation policy\nDiscuss benefits package changes\nNew hire onboarding process\nAction Items:",
            4,
        ),
        _meeting(
            "Design Sprint Planning",
            3,
            "Agenda:\nDefine problem statement\nBrainstorm solutions\nPrototype and test ideas\nAction Items:",
            2,
        ),
        _meeting(
            "Budget Review Meeting",
            2,
            "Agenda:\nReview past quarter expenses\nAnalyze budget variances\nDiscuss upcoming project costs\nAction Items:",
            2,
        ),
        _meeting(
            "All-Hands Team Meeting",
            4,
            "Agenda:\nCompany updates\nDepartment announcements\nCelebrate wins\nAction Items:",
            3,
        ),
    ),
    "Personal": (
        ("Dream Journal Entry", "Had a vivid dream about flyingover a vast ocean."),
        ("Bucket List", "1. Learn to surf. 2. Visit Machu Picchu. 3. Write a novel."),
        ("Grocery List", "Milk, eggs, bread, cheese, fruit, vegetables"),
        (
            "Favorite Quotes",
            '"The only limit to our realization of tomorrow will be our doubts of today." - Franklin D. Roosevelt',
        ),
        (
            "Movie Recommendations",
            "- Everything Everywhere All at Once \n- The Grand Budapest Hotel \n- Parasite",
        ),
        ("Birthday Gift Ideas for Mom", "Spa day, gardening tools, personalized photo album"),
        (
            "Workout Routine",
            "Monday: Cardio \nTuesday: Strength training \nWednesday: Rest \nThursday: Yoga \nFriday: Cardio \nWeekend: Active recovery",
        ),
        (
            "Travel Itinerary for Japan",
            "Day 1: Arrive in Tokyo, explore Shinjuku \nDay 2: Visit the Imperial Palace and Sensoji Temple \nDay 3: Take a day trip to Hakone \nDay 4: Travel to Kyoto, visit Kiyomizu-dera Temple \nDay 5: Explore Arashiyama Bamboo Forest \nDay 6: Depart from Osaka",
        ),
        ("Things I'm Grateful For", "My family, my health, my friends, my home, my job"),
        (
            "Home Improvement Projects",
            "Repaint the living room, install new kitchen backsplash, build a deck in the backyard",
        ),
        (
            "Party Planning Checklist",
            "Send invitations, plan menu, decorate venue, create playlist, hire photographer",
        ),
        (
            "Random Thoughts",
            "I wonder why cats purr? Is time travel possible? What's the meaning of life?",
        ),
        ("Password Ideas", "Combination of letters, numbers, symbols, not easily guessable"),
        ("Favorite Recipes", "Chocolate chip cookies, lasagna, chicken tikka masala"),
        (
            "Book Recommendations",
            "- The Lord of the Rings \n- The Hitchhiker's Guide to the Galaxy \n- Pride and Prejudice",
        ),
        ("Song Lyrics I Love", '"Imagine no possessions, I wonder if you can." - John Lennon'),
        (
            "Things to Do This Weekend",
            "Hike in the mountains, visit a museum, have a picnic in the park",
        ),
        ("Self-Care Ideas", "Take a bubble bath, read a good book, meditate, spend time in nature"),
        (
            "Personal Goals for the Year",
            "1. Save for a down payment on a house. 2. Get a promotion at work. 3. Run a marathon.",
        ),
    ),
    "Work": (
        (
            "Meeting Notes - Q2 Marketing Strategy",
            "Discussed social media campaigns, new product launch timeline, budget allocation.",
        ),
        (
            "Project Timeline - Website Redesign",
            "Phase 1: Wireframes due May 15th \nPhase 2: Design approvals by June 1st \nPhase 3: Development complete by July 15th \nPhase 4: Launch by August 1st",
        ),
        (
            "Performance Review Talking Points",
            "- Exceeded sales targets by 15% \n- Successfully led cross-functional team \n- Developed new client onboarding process",
        ),
        (
            "Client Feedback - Acme Corp.",
            "Positive feedback on project delivery, requested additional features for Phase 2.",
        ),
        (
            "To-Do List",
            "1. Respond to client emails \n2. Prepare presentation for team meeting \n3. Review budget proposal \n4. Schedule one-on-one with Sarah",
        ),
        (
            "Conference Notes - Tech Summit 2024",
            "Key takeaways on emerging technologies, potential applications for our industry.",
        ),
        (
            "Team Brainstorming - New Product Ideas",
            "Generated 15 potential product ideas, will narrow down to top 3 for further development.",
        ),
        (
            "Employee Onboarding Checklist",
            "1. Set up workstation \n2. Provide access to company systems \n3. Schedule training sessions \n4. Assign mentor",
        ),
        (
            "Company Policies and Procedures",
            "Links to documents on vacation policy, expense reimbursement, code of conduct.",
        ),
        (
            "Travel Itinerary - Client Visit",
            "Flights booked, hotel reservations confirmed, meeting schedule finalized.",
        ),
        (
            "KPI Report - Q1 2024",
            "Sales revenue up 10%, customer satisfaction rating at 92%, employee turnover rate at 5%.",
        ),
        (
            "Code Snippets - Python",
            "Useful code examples for data analysis, web scraping, automation tasks.",
        ),
        (
            "Industry News and Trends",
            "Summary of recent articles on market developments, competitor activity, regulatory changes.",
        ),
        (
            "Job Descriptions - Open Positions",
            "Detailed descriptions for Marketing Manager, Software Engineer, Sales Representative roles.",
        ),
        (
            "Meeting Minutes - Weekly Team Update",
            "Summary of discussion points, action items, decisions made during the meeting.",
        ),
        (
            "Training Materials - New Software",
            "Step-by-step guides, video tutorials, FAQs for learning how to use the new software.",
        ),
        (
            "Contact List - Key Clients",
            "Names, email addresses, phone numbers, company affiliations of important clients.",
        ),
        (
            "Budget Proposal - 2025",
            "Detailed breakdown of projected expenses and revenue for each department.",
        ),
        (
            "Professional Development Resources",
            "Links to online courses, workshops, conferences relevant to career growth.",
        ),
        (
            "Team Building Activities",
            "Ideas for virtual and in-person activities to improve team morale and collaboration.",
        ),
    ),
    "School": (
        (
            "Lecture Notes - Intro to Psychology",
            "Key concepts: nature vs. nurture, cognitive development, social psychology.",
        ),
        (
            "Reading List - American Literature",
            "- The Scarlet Letter \n- The Great Gatsby \n- Moby Dick",
        ),
        (
            "Study Guide - Calculus Midterm",
            "Topics covered: derivatives, integrals, limits, applications.",
        ),
        (
            "Research Paper Outline - Climate Change",
            "I. Introduction \nII. Causes of Climate Change \nIII. Impacts on the Environment \nIV. Solutions \nV. Conclusion",
        ),
        (
            "Group Project Notes - Marketing Campaign",
            "Team members: Sarah, David, Emily. Due date: May 30th. Focus: promoting a new sustainable product.",
        ),
        (
            "Exam Schedule - Spring Semester",
            "May 10th: Calculus \nMay 15th: American Literature \nMay 20th: Psychology",
        ),
        (
            "Class Syllabus - Introduction to Computer Science",
            "Course overview, grading policy, weekly schedule, required readings.",
        ),
        (
            "Essay Draft - The Role of Technology in Education",
            "Discusses the benefits and challenges of integrating technology into classrooms.",
        ),
        (
            "Lab Report - Chemistry Experiment",
            "Purpose, materials, procedure, results, analysis, conclusion.",
        ),
        ("Flashcards - Spanish Vocabulary", "Front: hola \nBack: hello"),
        (
            "Scholarship Application Deadlines",
            "May 1st: National Merit Scholarship \nJune 1st: College Board Opportunity Scholarships",
        ),
        (
            "Student Club Meeting Notes - Debate Club",
            "Discussed upcoming tournament, new member recruitment, fundraising ideas.",
        ),
        (
            "Campus Resources - Writing Center",
            "Offers one-on-one tutoring for essays, research papers, and other writing assignments.",
        ),
        (
            "Professor Contact Information",
            "Dr. Smith: jsmith@university.edu \nDr. Johnson: sjohnson@university.edu",
        ),
        (
            "Financial Aid Checklist",
            "1. Submit FAFSA \n2. Apply for scholarships \n3. Contact financial aid office",
        ),
        (
            "Campus Event Calendar",
            "May 10th: Spring Concert \nMay 15th: Career Fair \nMay 20th: Guest Speaker Lecture",
        ),
        (
            "Study Tips for Final Exams",
            "Create a study schedule, review notes regularly, form study groups, practice with past exams.",
        ),
        (
            "Internship Opportunities - Summer 2024",
            "Marketing internship at XYZ Company, Research internship at ABC Lab",
        ),
        (
            "Book Recommendations from Professor",
            "- Sapiens: A Brief History of Humankind \n- Thinking, Fast and Slow \n- Outliers: The Story of Success",
        ),
        (
            "Study Abroad Programs - Fall 2024",
            "Programs available in Spain, France, Italy, Germany, and Japan.",
        ),
    ),
    "Home": (
        (
            "Home Maintenance Schedule",
            "Spring: clean gutters, check roof for damage, service AC \nSummer: mow lawn weekly, trim hedges, check sprinkler system \nFall: rake leaves, clean chimney, winterize pipes \nWinter: check for ice dams, shovel snow, change air filters",
        ),
        (
            "Grocery List",
            "- Milk \n- Eggs \n- Bread \n- Cheese \n- Fruits \n- Vegetables \n- Toilet paper",
        ),
        (
            "Recipe - Chicken Noodle Soup",
            "Ingredients: chicken, noodles, carrots, celery, onion, broth, herbs.",
        ),
        (
            "Cleaning Checklist",
            "Kitchen: clean countertops, wipe down appliances, sweep and mop floor \nBathroom: clean toilet, sink, shower/tub, mirrors \nLiving room: dust furniture, vacuum carpet, fluff pillows",
        ),
        (
            "Home Renovation Ideas",
            "- Update kitchen cabinets \n- Refinish hardwood floors \n- Paint living room walls",
        ),
        (
            "Packing List - Summer Vacation",
            "- Clothes for warm weather \n- Swimsuit \n- Sunscreen \n- Hat \n- Sunglasses",
        ),
        (
            "Gardening Tips",
            "Water plants regularly, fertilize monthly, prune as needed, check for pests.",
        ),
        ("Emergency Contact List", "Police: 911 \nFire: 911 \nNeighbor: (123) 456-7890"),
        ("Wi-Fi Password", "Network Name: MyHomeWifi \nPassword: supersecretpassword"),
        (
            "Home Inventory",
            "List of valuable items in case of insurance claim (electronics, jewelry, furniture).",
        ),
        (
            "Houseplant Care Guide",
            "Specific care instructions for each houseplant (watering frequency, light needs, soil type).",
        ),
        (
            "Utility Bill Due Dates",
            "Electricity: 15th of every month \nGas: 20th of every month \nWater: 5th of every month",
        ),
        ("Party Planning - Birthday", "Guest list, menu, decorations, entertainment."),
        (
            "Neighborhood Watch Meeting Notes",
            "Discussed recent crime trends, safety tips, upcoming events.",
        ),
        (
            "Pet Care Reminders",
            "Feed dog twice a day, walk dog daily, clean litter box, schedule vet checkups.",
        ),
        ("DIY Project - Bookshelf", "Materials needed: wood, screws, nails, saw, drill."),
        ("Movie Night Ideas", "List of family-friendly movies to watch together."),
        ("Recipes to Try", "Links or descriptions of new recipes to cook at home."),
        (
            "Home Security Checklist",
            "Lock doors and windows, install alarm system, set timers for lights, don't hide spare keys outside.",
        ),
        ("Holiday Decoration Ideas", "Themes, color schemes, DIY crafts, shopping list."),
    ),
    "Projects": (
        (
            "Community Garden Project",
            "Create a shared green space for the neighborhood, promoting sustainable food production and community connection.",
        ),
        (
            "Home Renovation - Kitchen Remodel",
            "Design plans, budget, materials list, contractor quotes, timeline for a kitchen renovation.",
        ),
        (
            "Mobile App Development - Expense Tracker",
            "Project outline, wireframes, technology stack, development timeline, marketing plan.",
        ),
        (
            "Book Writing Project - Mystery Novel",
            "Outline, character sketches, plot points, research notes, writing schedule.",
        ),
        (
            "Online Course Creation - Web Development Basics",
            "Course curriculum, lesson plans, video scripts, assessment questions, marketing strategy.",
        ),
        (
            "DIY Furniture Building - Coffee Table",
            "Design plans, materials list, tools required, step-by-step instructions, finishing options.",
        ),
        (
            "Photography Portfolio Website",
            "Website design mockups, image selection, content writing, hosting platform, launch plan.",
        ),
        (
            "Charity Fundraising Event - 5K Run/Walk",
            "Event logistics, sponsorships, marketing plan, registration process, volunteer coordination.",
        ),
        (
            "Small Business Launch - Handmade Jewelry",
            "Business plan, product line, branding, pricing, marketing strategy, online store setup.",
        ),
        (
            "Art Installation - Public Sculpture",
            "Concept sketches, material selection, fabrication process, installation logistics, funding proposals.",
        ),
        (
            "Documentary Film - Local Environmental Issues",
            "Research topics, interview subjects, filming locations, script outline, editing plan.",
        ),
        (
            "Music Album Recording - Indie Rock Band",
            "Songwriting, studio booking, recording schedule, mixing and mastering, album artwork design.",
        ),
        (
            "Community Theater Production - Shakespeare Play",
            "Casting calls, rehearsal schedule, set design, costume design, marketing plan.",
        ),
        (
            "Coding Challenge - Machine Learning Algorithm",
            "Problem statement, data set, algorithm implementation, performance evaluation, results analysis.",
        ),
        (
            "Website Redesign - Non-Profit Organization",
            "Needs analysis, wireframes, design mockups, content migration, development plan.",
        ),
        (
            "Product Launch - Smart Home Device",
            "Market research, product specifications, pricing strategy, marketing campaign, launch timeline.",
        ),
        (
            "Interior Design Project - Living Room Makeover",
            "Mood board, furniture selection, color palette, lighting plan, accessories.",
        ),
        (
            "Travel Blog - Solo Trip Around Southeast Asia",
            "Itinerary, travel tips, destination highlights, photography plan, content schedule.",
        ),
        (
            "Language Learning Project - Conversational Spanish",
            "Study plan, learning resources, practice activities, language exchange partners, progress tracking.",
        ),
        (
            "Health and Fitness Challenge - 30-Day Transformation",
            "Workout plan, meal plan, progress tracking, motivation tips, before-and-after photos.",
        ),
    ),
    "Ideas": (
        (
            "Personalized Pet Portraits",
            "Offer custom-painted portraits of pets based on photos provided by clients.",
        ),
        (
            "Language Learning App",
            "Gamified language learning app with interactive exercises and personalized feedback.",
        ),
        (
            "Sustainable Fashion Subscription Box",
            "Curated selection of eco-friendly clothing and accessories delivered monthly.",
        ),
        ("Virtual Reality Escape Room", "Immersive escape room experience using VR technology."),
        (
            "Food Delivery Service for Dietary Restrictions",
            "Cater to people with allergies, intolerances, or specific diets.",
        ),
        (
            "Mental Health Support App",
            "Provides resources, guided meditations, and online therapy options.",
        ),
        (
            "AI-Powered Personalized Travel Itinerary Generator",
            "Creates custom travel plans based on user preferences and interests.",
        ),
        (
            "Smart Home Gardening System",
            "Automated watering, lighting, and nutrient monitoring for indoor plants.",
        ),
        (
            "Subscription Box for Book Lovers",
            "Curated selection of books, bookish goodies, and exclusive author content.",
        ),
        (
            "Online Platform for Local Artisans",
            "Showcase and sell handmade crafts and artwork directly to consumers.",
        ),
        (
            "Eco-Friendly Cleaning Products",
            "Develop and market a line of sustainable cleaning products for households.",
        ),
        (
            "Personalized Nutrition Coaching App",
            "Offers customized meal plans and fitness recommendations based on individual goals and needs.",
        ),
        (
            "Social Media Platform for Pet Owners",
            "Connect with other pet owners, share photos, and find pet-related services.",
        ),
        (
            "Online Marketplace for Vintage Clothing",
            "Buy and sell unique vintage clothing and accessories.",
        ),
        (
            "Augmented Reality Furniture Shopping App",
            "Visualize how furniture would look in your home before buying.",
        ),
        (
            "Subscription Service for Sustainable Home Goods",
            "Deliver eco-friendly household products and reusable alternatives to single-use items.",
        ),
        (
            "Crowdfunding Platform for Creative Projects",
            "Support artists, musicians, filmmakers, and other creatives in funding their projects.",
        ),
        (
            "Mobile App for Finding Local Volunteer Opportunities",
            "Connect volunteers with organizations in need of their skills and time.",
        ),
        (
            "Online Marketplace for Personalized Gifts",
            "Offer custom-made gifts for various occasions and interests.",
        ),
        (
            "Zero-Waste Grocery Store",
            "Sell bulk food items and package-free products to reduce waste.",
        ),
    ),
    "Health": (
        (
            "Workout Routine - Strength Training",
            "Exercises for each muscle group, sets, reps, rest periods, weekly schedule.",
        ),
        (
            "Meal Plan - Week of May 6th",
            "Breakfast, lunch, dinner, snacks for each day, grocery list, recipes.",
        ),
        (
            "Doctor's Appointment Notes - May 3rd",
            "Summary of discussion with doctor, diagnosis, treatment plan, medication list, follow-up appointments.",
        ),
        (
            "Medication Schedule",
            "List of medications, dosage, frequency, time to take, potential side effects, refills needed.",
        ),
        (
            "Health Goals for 2024",
            "Lose 10 pounds, run a 5K, reduce stress, improve sleep quality, get regular checkups.",
        ),
        (
            "Fitness Tracker Data - April 2024",
            "Steps taken, calories burned, active minutes, sleep duration, heart rate.",
        ),
        (
            "Mental Health Resources",
            "Contact information for therapists, support groups, hotlines, websites, apps for mental well-being.",
        ),
        (
            "Healthy Recipes to Try",
            "Links or descriptions of nutritious recipes for breakfast, lunch, dinner, snacks, desserts.",
        ),
        (
            "Nutrition Tips",
            "Guidelines for balanced eating, portion control, healthy food swaps, meal prep ideas.",
        ),
        (
            "Exercise Ideas",
            "Variety of workouts for different fitness levels and interests (cardio, strength, flexibility).",
        ),
        (
            "Sleep Hygiene Checklist",
            "Tips for creating a relaxing bedtime routine, improving sleep environment, getting quality sleep.",
        ),
        (
            "Health Insurance Information",
            "Policy number, provider contact information, coverage details, copayments, deductibles.",
        ),
        (
            "Allergy Information",
            "List of allergies, triggers, symptoms, treatment plan, emergency contact information.",
        ),
        (
            "Medical History",
            "Summary of past illnesses, surgeries, medications, immunizations, family medical history.",
        ),
        (
            "Weight Loss Progress Tracker",
            "Starting weight, current weight, goal weight, weight loss milestones, measurements.",
        ),
        (
            "Meditation and Mindfulness Resources",
            "Guided meditations, mindfulness exercises, breathing techniques for stress reduction.",
        ),
        (
            "Health-Related Articles and Blogs",
            "Links to informative articles on health topics, wellness trends, medical research.",
        ),
        (
            "Health Challenges and Solutions",
            "Personal notes on overcoming health obstacles, strategies for managing chronic conditions.",
        ),
        (
            "Fitness Class Schedule",
            "Days, times, locations of fitness classes (yoga, Pilates, Zumba, strength training).",
        ),
        (
            "Food Diary",
            "Record of daily food intake, calories, macronutrients, micronutrients, water intake.",
        ),
    ),
    "Travel": (
        (
            "Trip Itinerary - Europe Summer 2024",
            "Flights, accommodations, transportation, daily activities, sightseeing plans, restaurant reservations.",
        ),
        (
            "Packing List - Beach Vacation",
            "Clothing, toiletries, electronics, travel documents, beach gear, first-aid kit.",
        ),
        (
            "Travel Budget - Southeast Asia Backpacking",
            "Estimated costs for flights, accommodation, food, transportation, activities, visas.",
        ),
        (
            "Travel Insurance Information",
            "Policy number, provider contact information, coverage details, claim procedures.",
        ),
        (
            "Language Phrasebook - Italian",
            "Common phrases for greetings, directions, ordering food, asking for help.",
        ),
        (
            "Travel Tips - Staying Healthy Abroad",
            "Vaccinations, food and water safety, jet lag prevention, managing common illnesses.",
        ),
        (
            "Bucket List Destinations",
            "Dream travel destinations with reasons for visiting and potential activities.",
        ),
        (
            "Hotel Reviews - Paris",
            "Reviews of hotels in Paris based on location, amenities, price, service, cleanliness.",
        ),
        (
            "Flight Confirmation - Round-trip to Tokyo",
            "Airline, flight numbers, departure and arrival times, seat assignments, baggage allowance.",
        ),
        (
            "Restaurant Recommendations - Rome",
            "List of restaurants in Rome with cuisine type, price range, location, reviews.",
        ),
        (
            "Travel Photography Tips",
            "Equipment recommendations, composition techniques, capturing different types of travel photos.",
        ),
        (
            "Visa Requirements - China",
            "Information on visa types, application process, required documents, processing times.",
        ),
        (
            "Travel Journal - Road Trip Across America",
            "Daily entries documenting experiences, observations, thoughts, and feelings during the trip.",
        ),
        (
            "Transportation Options - London",
            "Information on public transportation (tube, buses), taxis, ride-sharing services, bike rentals.",
        ),
        (
            "Travel Apps and Websites",
            "List of useful apps for booking flights, hotels, finding restaurants, translating languages, navigating.",
        ),
        (
            "Cultural Etiquette Tips - Japan",
            "Customs and traditions to be aware of, do's and don'ts, appropriate behavior in different settings.",
        ),
        (
            "Solo Travel Tips",
            "Advice on staying safe, meeting people, planning activities, budgeting for solo travelers.",
        ),
        (
            "Travel Gear Checklist",
            "Essentials like luggage, backpacks, travel adapters, toiletries, first-aid kit, travel pillow.",
        ),
        (
            "Festivals and Events Calendar - Europe",
            "List of upcoming festivals, cultural events, concerts, exhibitions in different European countries.",
        ),
        (
            "Travel Photography Gear",
            "Camera, lenses, tripod, filters, memory cards, batteries, cleaning supplies.",
        ),
    ),
    "Finance": (
        (
            "Monthly Budget - May 2024",
            "Income, expenses, savings goals, spending categories, debt repayment plan.",
        ),
        (
            "Investment Portfolio Summary",
            "Breakdown of investments (stocks, bonds, mutual funds), performance overview, asset allocation.",
        ),
        (
            "Retirement Savings Plan",
            "Contribution schedule, target retirement age, projected retirement income, investment options.",
        ),
        (
            "Tax Preparation Checklist - 2023",
            "Documents needed (W-2, 1099 forms), deductions to claim, tax filing deadline.",
        ),
        (
            "Mortgage Payment Schedule",
            "Loan amount, interest rate, monthly payment, remaining balance, amortization schedule.",
        ),
        (
            "Emergency Fund Progress",
            "Current balance, savings goal, monthly contributions, target amount (3-6 months of expenses).",
        ),
        (
            "Credit Card Statement - April 2024",
            "Transactions, due date, minimum payment, outstanding balance, rewards earned.",
        ),
        (
            "Financial Goals for 2024",
            "Save for a down payment on a house, pay off student loan debt, increase retirement contributions.",
        ),
        (
            "Investment Research - Tech Stocks",
            "Analysis of potential tech companies to invest in, growth projections, risk assessment.",
        ),
        (
            "Budgeting Tips & Tricks",
            "Strategies for saving money, reducing expenses, tracking spending, automating savings.",
        ),
        (
            "Financial Advisor Contact Information",
            "Name, email address, phone number, website of financial advisor.",
        ),
        (
            "Online Banking Login Details",
            "Username, password, security questions, account numbers for online banking access.",
        ),
        (
            "Insurance Policies Summary",
            "Coverage details for health, auto, home, life insurance policies, contact information for insurers.",
        ),
        (
            "Debt Repayment Plan",
            "List of debts (credit cards, student loans), balances, interest rates, minimum payments, payoff strategies.",
        ),
        (
            "Expense Tracking Spreadsheet",
            "Template for tracking daily expenses, categorizing spending, identifying areas for saving.",
        ),
        (
            "Financial News & Analysis",
            "Summary of articles and reports on market trends, economic outlook, investment strategies.",
        ),
        (
            "Personal Finance Resources",
            "Links to helpful websites, blogs, podcasts, books on personal finance topics.",
        ),
        (
            "College Savings Plan - 529 Account",
            "Beneficiary information, investment options, contribution history, projected college costs.",
        ),
        (
            "Estate Planning Documents",
            "Will, power of attorney, healthcare directive, beneficiaries, executor information.",
        ),
        (
            "Charitable Giving Log",
            "Record of donations to charitable organizations, amounts, dates, tax-deductible status.",
        ),
    ),
}
