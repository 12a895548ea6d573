"""The table of what questions say and what the statements that answer them say instead
(memory/keyword_index/said_instead.py reads it): kinds of personal facts people ask about in
other words, each English and Chinese, and the words a question and a line share without one
being the other's; not one conversation's words."""

from __future__ import annotations

# Occupations and workplaces: a line that tells a job names it ("I've been a paramedic",
# "在一家银行做柜员") more often than it says "work". The commonest, not every one; words that
# stem into everyday words are out ("designer" is "design", "manager" "manag", "accountant"
# "account", "researcher" "research").
_JOBS_EN = (
    "nurse", "paramedic", "doctor", "surgeon", "pharmacist", "teacher", "professor", "tutor",
    "engineer", "programmer", "lawyer", "chef", "waiter", "waitress", "bartender", "barista",
    "cashier", "clerk", "receptionist", "secretary", "driver", "electrician", "plumber",
    "carpenter", "firefighter", "police", "officer", "soldier", "pilot", "journalist", "editor",
    "writer", "scientist", "librarian", "farmer", "architect", "banker", "teller", "freelancer",
    "counselor",
)
# What one does at work, said as a verb or as the people one works with ("I teach chemistry",
# "my students", "I'm retired"): a job is told by its activity as often as by its title.
_WORKING_EN = (
    "teach", "taught", "lecture", "lecturer", "classroom", "pupil", "student", "intern",
    "internship", "retired", "unemployed", "freelance", "salary", "paycheck", "promotion",
    "promoted", "client",
)
_JOBS_ZH = (
    "老师", "教师", "医生", "护士", "律师", "会计", "程序员", "工程师", "设计师", "厨师", "司机",
    "警察", "记者", "编辑", "翻译", "销售", "柜员", "店员", "服务员", "收银员", "公务员", "保安",
    "快递员", "外卖员", "客服", "文员", "前台", "教授",
    "公司", "单位", "银行", "医院", "工厂", "餐厅", "饭店", "超市", "外企", "国企",
    # A teacher names the school and the teaching (教 alone is one character, never a token).
    "教书", "教学", "任教", "上课", "学生", "小学", "中学", "初中", "高中", "幼儿园",
    "打工", "兼职", "退休", "失业", "创业",
)

# "我是干嘛的？" / "你是做什么的？" ask what a person does for a living; after a thing the same
# words ask what it is for ("这个是干嘛的？"), and then every line saying 工作 or 上班 is wrong
# (a probe of the lead's, "我是干什么的来着？", fell from rank 2 to 10 when the row took them
# whatever came before). Such a key counts only right after a pronoun or a person ("我老婆是干
# 什么的"), or at the start of a searched query, where the pronoun was stripped
# (memory/recall/queries.py).
DOING_KEYS_ZH = tuple(f"是{doing}"
                      for doing in ("干嘛", "干什么", "干啥", "做什么", "做啥", "搞什么"))
AGE_KEYS_ZH = ("多大",)

_DOG_BREEDS = ("retriever", "labrador", "poodle", "bulldog", "beagle", "husky", "corgi",
               "terrier", "dachshund", "chihuahua", "pug", "spaniel", "collie", "rottweiler",
               "schnauzer", "greyhound", "doberman", "pitbull", "german shepherd", "shih tzu")
_CAT_BREEDS = ("tabby", "siamese", "ragdoll", "maine coon", "sphynx", "calico")
_BIRDS = ("parakeet", "parrot", "budgie", "cockatiel", "canary", "lovebird", "cockatoo", "macaw")
# The peoples a family is said to come from (the adjective, as lines say "half Japanese").
_PEOPLES_EN = (
    "american", "mexican", "japanese", "chinese", "korean", "vietnamese", "filipino", "thai",
    "indian", "pakistani", "bangladeshi", "italian", "irish", "german", "french", "spanish",
    "portuguese", "polish", "greek", "russian", "ukrainian", "cuban", "dominican", "colombian",
    "brazilian", "peruvian", "nigerian", "ghanaian", "ethiopian", "somali", "egyptian",
    "lebanese", "turkish", "iranian", "persian", "arab", "african", "asian", "latino", "latina",
    "hispanic", "swedish", "norwegian", "dutch", "scottish", "british", "canadian", "jamaican",
    "haitian", "puerto rican", "salvadoran", "guatemalan", "armenian", "syrian", "moroccan")
# Pets and animals kept or met beside dogs and cats; none a dinner ("fish", "chicken", "goat").
_SMALL_PETS = ("hamster", "rabbit", "bunny", "guinea pig", "ferret", "parrot", "iguana", "lizard",
               "gecko", "turtle", "tortoise", "snake", "goldfish", "horse", "pony", "frog",
               "hedgehog", "chinchilla")
_SMALL_PETS_ZH = ("兔子", "仓鼠", "鹦鹉", "乌龟", "蜥蜴", "金鱼", "龙猫", "刺猬", "荷兰猪",
                  "豚鼠", "小鸟")
# What a pet or an animal asked by its class is told as.
_PETS = ("dog", "puppy", "cat", "kitten", "pet", *_SMALL_PETS)
# Animals met outdoors, on a hike or at the shore ("I saw a bear on the hike today").
_WILD = ("bear", "bears", "deer", "moose", "elk", "fox", "wolf", "wolves", "coyote", "raccoon",
         "raccoons", "skunk", "squirrel", "snake", "snakes", "rattlesnake", "cougar",
         "mountain lion", "alligator", "shark", "whale", "whales", "dolphin", "dolphins", "otter",
         "bug", "bugs", "insect", "insects", "beetle", "beetles", "cricket", "crickets", "spider",
         "spiders", "roach", "roaches", "worm", "worms")
_PETS_ZH = ("狗狗", "小狗", "猫咪", "小猫", "宠物", *_SMALL_PETS_ZH)
_DOG_BREEDS_ZH = ("金毛", "拉布拉多", "泰迪", "贵宾", "柯基", "哈士奇", "二哈", "柴犬", "边牧",
                  "萨摩耶", "博美", "比熊", "法斗", "巴哥", "德牧", "阿拉斯加", "土狗", "田园犬")
_CAT_BREEDS_ZH = ("橘猫", "布偶", "英短", "美短", "暹罗", "狸花", "三花", "加菲", "蓝猫")

# (what questions say, what the statements that answer them say instead). A key is a way of
# asking for a kind of fact about a person; a key that also asks about things is out (see the
# job rows), and so is a statement's word most lines say ("enjoy", "fun", 喜欢, 同事; 小时候, whose
# 小时 is "hour"). A statement need not be in the first person: "what does my partner do?" asks for
# "he's a carpenter", and the player's lines about others say "I" and "my" as well.
SAID_INSTEAD: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("job", "jobs", "occupation", "profession", "career", "for a living", "line of work",
      "for work", "kind of work", "type of work", "sort of work", "where do i work",
      "where i work", "workplace", "employer"),
     ("work", "job", "career", "shift", "office", "colleague", "coworker", "boss", "employed",
      "hired", *_JOBS_EN, *_WORKING_EN)),
    (("hometown", "home town", "originally from", "where am i from", "where i'm from",
      "where i am from", "come from", "grow up", "grew up", "growing up", "raised",
      "where was i born", "where i was born", "birthplace", "place of birth", "home country",
      "homeland", "roots", "where's home", "where’s home", "where is home"),
     ("grew up", "growing up", "grow up", "born", "raised", "hometown", "native", "originally",
      "childhood")),
    (("partner", "spouse", "significant other", "other half", "better half"),
     ("wife", "husband", "girlfriend", "boyfriend", "fiancé", "fiancée", "fiancee", "partner",
      "hubby", "married")),
    (("sibling", "siblings"), ("sister", "brother", "sibling", "twin")),
    (("pet", "pets", "furry friend"), _PETS),
    # A pet is asked by its kind in any of the words for it ("my pup", "my kitty") and told by
    # another, or by its breed ("our golden retriever Biscuit"): the commonest breeds, not all.
    (("dog", "dogs", "doggo", "doggos", "doggy", "doggie", "pup", "pups", "puppy", "puppies",
      "pooch"), ("dog", "puppy", "pup", "doggo", "pooch", *_DOG_BREEDS)),
    (("cat", "cats", "kitty", "kitties", "kitten", "kittens", "kitteh"),
     ("cat", "kitten", "kitty", *_CAT_BREEDS)),
    # A favourite bird is told by its kind, wild ones too ("Eagles have always mesmerized me").
    (("bird", "birds", "birdie"),
     ("bird", *_BIRDS, "eagle", "eagles", "hawk", "owl", "owls", "falcon", "hummingbird",
      "penguin", "penguins", "flamingo", "robin", "crow", "raven", "peacock", "swan", "heron",
      "pelican", "woodpecker", "cardinal", "bluejay", "blue jay", "sparrow", "pigeon")),
    # An animal is asked by its class and told by its kind ("what animal am i babysitting" for
    # "the neighbors iguana that we're watching", "critters" for "I would get two turtles").
    (("animal", "animals", "critter", "critters", "creature", "creatures", "reptile",
      "reptiles", "wildlife"), (*_PETS, *_WILD)),
    # Age is asked as "how old" and told as a number ("she's 31", "I turned 29"): the keyword
    # side has the words around the number.
    (("how old", "what age", "age"), ("years old", "year old", "yrs old", "age", "aged")),
    # A parent by chat's name for one ("my old mans job" for "My dad spent thirty years as a
    # firefighter").
    (("old man", "old mans", "old man's", "pops"), ("dad", "father", "pops", "daddy")),
    (("old lady", "old ladys", "old lady's"), ("mom", "mother", "mum", "mama")),
    # Height is asked as "how tall" / 多高 / 个儿 and told with its measure ("我表姐身高164厘米").
    (("how tall", "height"), ("tall", "height", "feet", "inches", "cm")),
    (("多高", "身高", "个子", "个儿", "个头"), ("身高", "厘米", "公分", "个子", "个头")),
    (("vehicle", "what do i drive"),
     ("car", "truck", "motorbike", "motorcycle", "scooter", "van", "drive")),
    (("vacation", "holiday", "holidays", "getaway"),
     ("trip", "travel", "vacation", "holiday", "flight", "hotel")),
    # A trip is also told as the vacation it was ("the trip w her fam" for "a picture from a
    # vacation in Florida … with my family").
    (("trip", "trips"), ("vacation", "holiday", "getaway")),
    (("medication", "medicine", "meds", "prescription"),
     ("medication", "medicine", "pills", "drug", "meds", "prescription")),
    # An allergy is also asked as what the stomach cannot take ("whats that food thing my
    # stomach cant handle" for "its cheese I cant have cheese, any dairy product doesnt agree
    # with me").
    (("allergy", "allergies", "allergic", "can't eat", "cannot eat", "can’t eat", "dietary",
      "intolerance", "intolerant", "can't handle", "cannot handle", "can’t handle",
      "agree with me", "not agree with"),
     ("allergic", "allergy", "intolerant", "intolerance", "vegetarian", "vegan", "eat",
      "lactose", "dairy", "gluten", "stomach", "agree with me")),
    (("birthday", "birthdays", "bday", "bdays", "date of birth", "birth date", "when was i born",
      "when i was born", "year older"),
     ("birthday", "born")),
    (("hobby", "hobbies", "pastime", "free time", "spare time"),
     ("hobby", "hobbies", "pastime", "free time", "spare time", "weekend", "practice",
      "practise", "lesson", "club", "class", "classes", "workshop", "took up", "picked up")),
    # A sport is asked by the word and told by the game ("my cousin is really into climbing").
    # "work out" is no key: "how did the interview work out?" asks no sport. Keeping in shape
    # is told by the sport ("to stay in shape" for "started hitting the gym").
    (("sport", "sports", "exercise", "stay in shape", "keep in shape", "get in shape",
      "staying in shape", "stay fit", "keep fit", "keeping fit", "workout", "workouts"),
     ("sport", "basketball", "soccer", "football", "tennis", "badminton", "volleyball", "golf",
      "baseball", "hockey", "rugby", "cricket", "swimming", "swim", "running", "jogging",
      "climbing", "bouldering", "yoga", "pilates", "skiing", "snowboarding", "surfing",
      "cycling", "boxing", "skating", "gym", "workout", "marathon")),
    # The asker's own: "children" alone also asks about anyone's ("a friend with a newborn
    # child") and drew every line saying "baby".
    (("my kids", "my children", "my child", "our kids", "our children", "any kids",
      "any children"),
     ("son", "daughter", "baby", "kid", "child", "toddler")),
    (("parents", "folks"), ("mom", "mum", "dad", "mother", "father", "parent")),
    # A relative is told by who ("my cousin rafi finally opened his halal food truck").
    (("relative", "relatives", "family member", "family members"),
     ("relative", "cousin", "aunt", "uncle", "niece", "nephew", "grandma", "grandpa",
      "grandmother", "grandfather", "in-law", "in-laws")),
    (("where do i live", "where i live", "where am i living", "address", "neighborhood",
      "neighbourhood"),
     ("live", "moved", "apartment", "house", "rent", "neighborhood", "neighbourhood")),
    # What one studies now is told by the major ("what am i studying at uni again?" for
    # "Switched my major to history this semester").
    (("what did i study", "where did i study", "alma mater", "where did i go to school",
      "where i went to school", "graduate from", "graduated from", "studying", "major"),
     ("studied", "study", "major", "degree", "graduated", "university", "college", "school",
      "semester")),
    # A diet is told by what one cuts or eats ("day 20 of no carbs", "went keto"); "fasting"
    # and "cutting" stem into everyday words ("fast", "cut").
    (("diet", "dieting", "on a cleanse"),
     ("diet", "carb", "carbs", "keto", "vegan", "vegetarian", "calorie", "calories", "sugar",
      "paleo", "gluten", "low carb", "meal prep", "intermittent")),
    # An instrument is told by its name ("Been practicing cello scales every night").
    (("instrument", "instruments"),
     ("guitar", "piano", "violin", "cello", "viola", "drums", "drum", "ukulele", "flute",
      "saxophone", "sax", "bass", "trumpet", "clarinet", "harp", "keyboard", "banjo",
      "harmonica", "accordion", "trombone", "oboe", "mandolin")),
    # A dance is told by its style ("i signed up for salsa classes tuesdays").
    (("dance", "dances", "dancing"),
     ("dance", "dancing", "salsa", "tango", "ballet", "hip hop", "hip-hop", "waltz", "bachata",
      "ballroom", "breakdancing", "zumba", "flamenco", "merengue", "foxtrot", "line dancing",
      "swing dancing", "belly dancing", "choreography")),
    # How one gets around is told by the ride ("I usually take public transport").
    (("get around", "getting around", "commute", "commuting", "get to work", "getting to work",
      "transportation", "transport"),
     ("bus", "train", "subway", "metro", "tram", "bike", "biking", "cycle", "drive", "car",
      "public transport", "public transportation", "transit", "uber", "taxi", "carpool",
      "scooter")),
    # A fear is told by its words, or by what one cannot bring oneself to do ("I still can't
    # make myself get on a plane": STATED; its words are stop words and "make").
    (("phobia", "phobias", "afraid of", "scared of", "frightened of", "terrified of", "fear",
      "fears", "freaked out about", "freaked out by", "freaking out about", "freak out about"),
     ("afraid", "scared", "terrified", "fear", "phobia", "panic", "freak out",
      "freaks me out")),
    # The oddest of a kind is asked and told in any of its words ("wats the grossest thing u
    # ever ate" for "The weirdest would have to be Bovine colostrum", "that weird breakfast"
    # for "the oddest ive ever had"). Words, not a kind of fact (NOT_KINDS); "odd" is no key
    # ("an odd number").
    (("weirdest", "grossest", "strangest", "oddest", "nastiest", "most disgusting", "weird",
      "gross", "strange"),
     ("weirdest", "grossest", "strangest", "oddest", "nastiest", "disgusting")),
    # What one likes best is told as a favourite, and the other way round ("what kind of stuff
    # does she like painting best?" for "Painting landscapes is my favorite!").
    (("best", "favorite", "favourite", "fav", "fave"),
     ("best", "favorite", "favourite", "fav", "fave")),
    # Drink asked as drink is told by what was drunk ("that boozy thing they went to" for "a
    # wine tasting").
    (("boozy", "booze", "alcohol", "alcoholic", "liquor"),
     ("alcohol", "wine", "beer", "cocktail", "cocktails", "whiskey", "whisky", "vodka", "tequila",
      "rum", "gin", "brewery", "winery", "sake", "champagne", "margarita", "tasting")),
    # Blowing off steam is told as stress relief ("whats Gina's go-to when she needs to blow off
    # some steam" for "Dance is pretty much my go-to for stress relief").
    (("blow off steam", "blow off some steam", "blowing off steam", "let off steam",
      "let off some steam", "decompress", "destress", "de-stress"),
     ("stress", "relief", "relax", "relaxing", "unwind", "calm", "chill", "decompress")),
    # Who one lives with, in any of its words.
    (("roommate", "roommates", "flatmate", "flatmates", "housemate", "housemates"),
     ("roommate", "roommates", "flatmate", "flatmates", "housemate", "housemates")),
    # A colour is told by its name ("Blue's my fave, it makes me feel relaxed").
    (("color", "colour", "colors", "colours"),
     ("color", "colour", "blue", "red", "green", "yellow", "purple", "pink", "orange", "black",
      "white", "grey", "gray", "brown", "teal", "navy", "turquoise", "lavender", "beige")),
    # The weekend is told by its day ("every Saturday I teach chess at the community centre").
    (("weekend", "weekends"), ("weekend", "saturday", "sunday", "saturdays", "sundays")),
    # Weather is told by what it was ("one thing they hate is snow").
    (("weather",), ("snow", "snowy", "rain", "rainy", "storm", "storms", "thunder", "heat", "hot",
                    "cold", "sunny", "humid", "windy", "fog", "hail")),
    # Chat's names of days and hours ("every hump day after dark" for "wednesday nights").
    (("hump day", "hump days"), ("wednesday", "wednesdays", "wed", "weds")),
    (("after dark", "late at night"), ("night", "nights", "evening", "evenings", "tonight")),
    # How many came is told as attending ("how many people showed up" for "There were 7 people
    # that attended").
    (("how many people", "showed up", "show up", "turnout", "how many came", "how many guests"),
     ("attended", "attend", "attendance", "turnout", "guests", "crowd", "showed up")),
    # What one switched to is told as what one does instead ("the one u switched to after the
    # duck one" for "Instead of ducks newburyport, I started reading 2666").
    (("switched to", "switch to", "swapped to", "changed to", "moved on to"),
     ("instead", "switched", "swapped", "replaced", "moved on")),
    # A surface is told by what covers it ("what surface did I want in the studio?" for "I'm
    # after Marley flooring").
    (("surface", "surfaces"),
     ("floor", "flooring", "floors", "countertop", "countertops", "hardwood", "tile", "tiles",
      "carpet", "laminate", "vinyl", "concrete", "marble", "granite")),
    # An award is told by what was given ("they gave me a medal!").
    (("award", "awards", "prize", "prizes"),
     ("award", "medal", "trophy", "prize", "certificate", "plaque", "honor", "honour",
      "recognition", "ribbon")),
    (("film",), ("movie",)),
    (("movie",), ("film",)),
    # A thing by what it is ("that beach gadget" for "a metal detector"), a skill picked up by
    # the course that taught it, a pet's haircut by its grooming, a waterfall by the falls a
    # place is named after, time out of town by the trip, wins told as achievements. Words,
    # not kinds of fact (NOT_KINDS).
    (("gadget", "gadgets", "gizmo", "gizmos", "contraption", "contraptions"),
     ("gadget", "gizmo", "device", "detector", "leveler", "leveller", "drone", "scanner",
      "tracker", "projector", "telescope", "metal detector")),
    (("pick up how", "picked up how", "learn how", "learned how", "learnt how"),
     ("course", "courses", "class", "classes", "lesson", "lessons", "taught", "learned",
      "learnt", "tutorial", "tutorials", "workshop")),
    (("haircut", "haircuts"), ("haircut", "haircuts", "grooming", "groomer", "groomed",
                               "barber", "salon", "hairdresser")),
    (("waterfall", "waterfalls"), ("falls", "waterfall", "cascade", "cascades")),
    (("out of town", "outta town", "while i'm away", "when i'm away", "while im away",
      "when im away", "away from home"),
     ("trip", "trips", "travel", "travels", "traveling", "travelling", "vacation", "away")),
    (("wins", "accomplishments", "achievements"),
     ("achievements", "accomplishments", "successes", "wins", "milestones")),
    # One person by the words for them: "my boss" is the supervisor a line names ("manager"
    # alone stems into "manage"); 我领导 is 我的上司, 我老婆 我媳妇. Words, not a kind of fact
    # (NOT_KINDS).
    (("boss", "supervisor", "manager"), ("boss", "supervisor")),
    # Where one's family comes from is told by a people's name ("like heritage wise" for "my
    # wife is half Japanese").
    (("heritage", "ethnicity", "ethnic", "nationality", "ancestry", "descent"),
     ("heritage", "ethnicity", "nationality", "ancestry", "descent", "immigrant", "immigrants",
      "immigrated", *_PEOPLES_EN)),
    # Money is told by its sums ("my weekend gig for extra cash" for "for 20 bucks a pop").
    (("cash", "extra money", "side money", "spending money", "pocket money"),
     ("cash", "money", "bucks", "dollars", "paid", "pays", "tips")),
    # What one saves for is told by the putting aside and the thing wanted ("putting 200 bucks
    # aside every month, I really want a used Ducati").
    (("saving up", "saving for", "save up", "save for", "saving money", "saving towards",
      "putting money aside", "putting aside"),
     ("save", "saving", "saved", "savings", "aside", "afford", "budget")),
    # A name is asked as "name" and told as what one calls it ("what did I name my cat?" for
    # "she's called Pepper", "we call him Biscuit"). Words, not a kind of fact (NOT_KINDS).
    (("name", "names", "named"), ("called", "call", "calls", "calling")),
    # ...and a thing asked as what it is called is told by its name ("whats ur friends kitten
    # called" for "Her name is mittens", "i named her gloria").
    (("called",), ("name", "named", "names")),
    # A plant kept is told by its kind ("whats my plant called" for "my pothos finally grew a
    # new vine"), a coffee order by the drink ("my iced oat cortado w an extra shot").
    (("plant", "plants", "houseplant", "houseplants"),
     ("pothos", "succulent", "succulents", "cactus", "fern", "monstera", "orchid", "bonsai",
      "ficus", "aloe", "basil", "philodendron", "snake plant", "peace lily", "ivy")),
    (("coffee",),
     ("latte", "cortado", "espresso", "cappuccino", "americano", "macchiato", "mocha",
      "cold brew", "frappuccino", "flat white", "barista", "oat milk")),
    # A saying one lives by is told as a principle or a belief ("john's got some saying about
    # why he takes breaks" for "I adhere to the principle that only those who rest well work
    # well").
    (("motto", "mantra", "a saying", "some saying", "his saying", "her saying", "my saying",
      "favorite saying", "words to live by"),
     ("motto", "mantra", "principle", "principles", "saying", "believe", "philosophy",
      "always say")),
    # One's childhood is told as being younger or growing up ("what did his brothers n sisters
    # throw for him back when he was a kid" for "When I was younger, my siblings threw me one").
    (("as a kid", "was a kid", "were a kid", "lil kid", "little kid", "as a child",
      "was a child", "were a child"),
     ("younger", "young", "child", "childhood", "kid", "little", "growing up", "grew up")),
    # Out back is the yard ("what did i set up out back for my pups" for "a doggy play area in
    # the backyard"); a dream place is the ideal one ("that pic of my dream studio" for "my
    # ideal dance studio by the water").
    (("out back", "out the back"), ("backyard", "back yard", "yard", "garden", "patio")),
    (("dream job", "dream house", "dream home", "dream car", "dream studio", "dream place",
      "dream spot", "dream school", "dream vacation", "dream trip", "dream wedding"),
     ("ideal", "perfect", "dream")),
    # What one trains for is the event signed up for ("what am i training for" for "i signed up
    # for a half marathon in april"). A key of several words is an idiom whose own words are not
    # searched (query_terms): "training" alone keeps "train" a word of the question.
    (("training", "preparing for", "prepping for"),
     ("marathon", "race", "triathlon", "competition", "tournament", "signed up", "sign up",
      "exam", "audition", "tryout", "tryouts", "match")),
    # A landlord is told by the rent ("Mr. Patel came by for the rent", 收房租).
    (("landlord", "landlady", "property manager"),
     ("rent", "lease", "landlord", "landlady", "property manager", "tenant")),
    # A birth in the family is asked as having a child and told by the baby or by what the
    # teller became ("my sis just had a baby boy, im an uncle now", "my sister's newborn").
    # "kid" alone asks about any child, and "newborn" names the child talked of ("friends with
    # a newborn child" drew every line saying "baby" or "uncle"): only having one is a key.
    (("had a kid", "had a baby", "have a baby", "having a baby", "had a child", "gave birth",
      "give birth"),
     ("baby", "newborn", "born", "birth", "pregnant", "aunt", "uncle", "auntie", "grandma",
      "grandpa", "grandmother", "grandfather", "niece", "nephew", "grandson", "granddaughter")),
    # What one wants to do before dying is told as in one's lifetime or on the bucket list ("that
    # thing in the sky i gotta see before i die" for "I wanna see the northern lights in my
    # lifetime"). "before" is a word of asking, gone from the searched question: "i die" stays.
    (("before i die", "i die", "bucket list", "kick the bucket", "in my lifetime",
      "once in my life"),
     ("lifetime", "bucket list", "before i die")),
    # Where a pet came from is told by the adopting or the shelter ("did u get him from a breeder
    # or what" for "he's adopted").
    (("breeder", "breeders", "pet store", "pet shop", "get him from", "get her from",
      "got him from", "got her from"),
     ("breeder", "adopted", "adopt", "adopting", "adoption", "shelter", "rescue", "rescued",
      "pet store", "pet shop")),
    # A shop's deals are told as its offers and promotions ("the deals n discounts u put on the
    # shop" for "customers love the new offers and promotions").
    (("deals", "discount", "discounts", "promo", "promos", "coupon", "coupons"),
     ("offer", "offers", "promotion", "promotions", "promo", "discount", "discounts", "deal",
      "deals", "sale", "coupon", "coupons")),
    # The ride to work is the commute ("so the ride to work doesnt feel like wasted time" for "I
    # dont mind commuting cause I usually will have a book with me … on the bus").
    (("ride to work", "drive to work", "way to work", "trip to work", "ride home", "drive home",
      "way home", "commute"),
     ("commute", "commuting", "commuter", "bus", "train", "subway")),
    # What gave one trouble is told as a challenge ("what gave u the most trouble when u first
    # joined the wolves?" for "Fitting into the new team's style of play was a challenge").
    (("most trouble", "gave you trouble", "gave me trouble", "hardest part", "toughest part",
      "hardest thing", "toughest thing", "biggest struggle"),
     ("challenge", "challenges", "challenging", "difficult", "tough", "hard", "struggle",
      "struggled", "struggling", "trouble")),
    # A fear is what one gets over ("what the comp would help me get over" for "a good
    # opportunity to also get over my fear of crowds").
    (("get over", "got over", "getting over", "overcome", "overcoming"),
     ("fear", "fears", "afraid", "scared", "anxiety", "anxious", "phobia", "nervous", "shy")),
    # A console is told by its name ("which consoles was u still missing" for "I need a psp,
    # n64, and gamboy to finish my collections"), a PlayStation by its number.
    (("console", "consoles"),
     ("console", "consoles", "nintendo", "playstation", "xbox", "gamecube", "gameboy", "gamboy",
      "n64", "snes", "nes", "wii", "psp", "ps1", "ps2", "ps3", "ps4", "ps5", "sega", "genesis",
      "dreamcast", "atari", "switch")),
    (("ps1", "ps2", "ps3", "ps4", "ps5"), ("playstation",)),
    # What one is bad at is told as no strong suit ("the part i always sucked at" for "reading
    # sheet music isnt my strong suit").
    (("sucked at", "suck at", "sucks at", "bad at", "not good at", "weakness", "weak spot"),
     ("strong suit", "not good", "bad at", "weak", "weakness", "struggle", "struggled",
      "suck", "sucked")),
    # "哪儿的人" as "哪儿人". 从小 is the English row's "childhood".
    (("哪里人", "哪儿人", "哪里的人", "哪儿的人", "哪的人", "哪个城市的人", "哪座城市的人",
      "哪个地方的人", "什么地方的人", "哪个省的人", "家乡", "老家", "故乡", "籍贯",
      "长大", "出生地", "在哪出生", "在哪儿出生", "在哪里出生", "哪里出生", "哪儿出生",
      "从哪来", "从哪儿来", "从哪里来", "打哪来", "打哪儿来", "打哪里来", "出身"),
     ("老家", "家乡", "故乡", "来自", "出生", "长大", "土生土长", "祖籍", "籍贯", "从小")),
    (("对象", "另一半", "伴侣", "爱人", "那口子"),
     ("女朋友", "男朋友", "女友", "男友", "老公", "老婆", "妻子", "丈夫", "对象", "爱人", "媳妇",
      "太太", "未婚妻", "未婚夫", "伴侣")),
    # "是干嘛" / "是做什么" (DOING_KEYS_ZH) only where a pronoun asks them (_keys_found).
    (("职业", "做什么工作", "干什么工作", "什么工作", "啥工作", "哪儿工作", "哪里工作", "在哪工作",
      "工作是什么", "上班", "哪一行", "哪行", "从事", "谋生", *DOING_KEYS_ZH),
     ("工作", "职业", "上班", "加班", "老板", "入职", "辞职", "跳槽", "实习", "岗位", *_JOBS_ZH)),
    (("兄弟姐妹", "手足"), ("哥哥", "姐姐", "弟弟", "妹妹", "兄弟", "姐妹", "我哥", "我姐", "我弟",
                            "我妹")),
    (("宠物", "毛孩子"), ("养了", *_PETS_ZH)),
    (("动物", "小动物"), _PETS_ZH),
    (("狗", "汪星人"), ("狗狗", "小狗", "养狗", *_DOG_BREEDS_ZH)),
    (("猫", "喵星人"), ("猫咪", "小猫", "养猫", *_CAT_BREEDS_ZH)),
    # 岁 alone is a token only beside a number ("31岁。"); "40岁了" and "三十岁" are bigrams.
    # "多大" alone also asks a size ("房子多大？"): only after a pronoun, a person or 今年.
    (("多大了", "多大年纪", "多大岁数", "几岁", "多少岁", "年龄", "年纪",
      "岁数", "高寿", *AGE_KEYS_ZH),
     ("岁", "岁了", "十岁", "周岁", "年龄", "年纪", "岁数")),
    (("交通工具", "座驾", "什么车", "啥车"),
     ("汽车", "开车", "车子", "一辆", "摩托", "电动车", "自行车", "单车", "电瓶车", "骑车")),
    (("去哪儿玩", "去哪里玩", "去哪玩", "出去玩", "度假", "旅游", "旅行", "出游"),
     ("旅行", "旅游", "度假", "酒店", "机票", "航班", "民宿")),
    (("过敏", "忌口", "不能吃", "吃不了", "不耐受"),
     ("过敏", "忌口", "不能吃", "吃不了", "不耐受", "吃素", "素食")),
    (("生日", "出生日期", "什么时候出生", "哪天出生", "哪年出生", "几号出生", "什么时候生的",
      "哪天生的"),
     ("生日", "出生", "过生")),
    # A pastime is also asked as what one tinkers with ("他平时爱捣鼓啥" for "喜欢编程这个兴趣
    # 爱好"); not as what one loves to do ("爱干啥"), which brought up everyone's 爱好 above
    # "我表妹特别喜欢听音乐会".
    (("爱好", "兴趣", "业余", "闲暇", "消遣", "空闲", "捣鼓"),
     ("爱好", "兴趣", "业余", "周末", "每周", "练习", "兴趣班", "培训班", "报了")),
    (("运动", "体育", "锻炼", "什么球", "啥球", "挥拍"),
     ("运动", "篮球", "足球", "网球", "羽毛球", "乒乓球", "排球", "高尔夫", "游泳", "跑步",
      "健身", "攀岩", "瑜伽", "滑雪", "骑行", "骑车", "登山", "爬山", "拳击", "滑冰", "打球",
      "马拉松")),
    # A day asked as 几号 / 啥时候 is told as the time or date of it ("…的时间是2024-04-13
    # 14:00", "定在下周六"), not as how long it lasts ("…的持续时间是五个周" drew level with the
    # line of the time when the told word was 时间). A word, not a kind of fact (NOT_KINDS).
    (("几号", "哪天", "哪一天", "什么时候", "啥时候", "几点", "什么日子", "日期"),
     ("的时间", "开始时间", "日期", "定在")),
    (("周末", "双休"), ("周末", "双休", "周六", "周日", "星期六", "星期天", "星期日", "礼拜六",
                      "礼拜天", "礼拜日")),
    (("颜色", "什么色", "啥色"),
     ("颜色", "蓝色", "红色", "绿色", "黄色", "紫色", "粉色", "黑色", "白色", "灰色", "橙色",
      "棕色", "米色", "天蓝", "藏青")),
    # Abroad in any of its words ("去外国练瑜伽的活动" for "异域瑜伽之旅…体验异国风光").
    (("外国", "国外", "出国", "海外"), ("外国", "国外", "异国", "异域", "海外", "境外", "出国")),
    # How many came is told as the size ("…手作音乐会的规模是五千人").
    (("多少人", "几个人", "人数"), ("规模", "人数", "参加")),
    # Where an event is held is told as its venue ("…的会，在哪个城市开来着" for
    # "美食创新会的地点是山东青岛").
    (("在哪儿开", "在哪开", "在哪里开", "哪个城市开", "在哪儿办", "在哪办", "在哪里办",
      "哪个城市办", "在哪儿举办", "在哪举办", "在哪里举办", "哪个城市举办", "在哪儿举行",
      "在哪举行", "在哪里举行", "哪个城市举行", "在哪儿搞", "在哪搞", "在哪里搞", "哪个城市搞"),
     ("地点", "举办地", "举行", "举办")),
    # A post is asked as a rank (级别, 官儿, 职位) and told by its title ("我的上司是总监").
    (("级别", "职位", "职务", "头衔", "官儿", "啥官", "什么官", "几把手"),
     ("总监", "经理", "主管", "总裁", "总经理", "董事长", "主任", "组长", "班长", "副总", "处长",
      "科长", "局长", "校长", "院长", "老板", "合伙人", "职位", "职务", "头衔")),
    # How long is asked as 多久 and told as the span ("异域瑜伽之旅的持续时间是四个周", 为期三天).
    (("多久", "多长时间", "多少天", "持续多久", "开几天", "办几天", "搞几天", "要几天",
      "持续几天", "进行几天"), ("持续", "时长", "为期", "天数")),
    (("女儿", "闺女", "丫头", "小丫头"), ("女儿", "闺女")),
    (("儿子", "小子"), ("儿子", "小子")),
    (("子女", "我的孩子", "我孩子", "我家孩子", "我们的孩子", "几个孩子", "我的小孩", "我家小孩"),
     ("儿子", "女儿", "宝宝", "孩子", "闺女")),
    (("父母", "爸妈", "双亲"), ("爸爸", "妈妈", "我爸", "我妈", "父亲", "母亲", "爸妈", "父母")),
    (("住哪", "住在哪", "住址", "家在哪"), ("住在", "搬到", "搬家", "租了", "公寓", "小区")),
    # Where one is at university is told by getting in ("我儿子今年考上了南航" for "我家小子在哪儿
    # 念大学").
    (("专业", "学历", "哪个学校", "哪所大学", "学的什么", "学什么的", "毕业于", "哪毕业", "念大学",
      "上大学", "读大学", "哪上学", "哪儿上学", "哪里上学", "念书", "念到", "读到", "文化程度"),
     ("大学", "专业", "毕业", "学校", "读书", "读研", "研究生", "本科", "学院", "考上", "考进",
      "录取", "在读", "学历", "硕士", "博士", "大专", "中专")),
    (("减肥", "节食", "饮食", "忌口的东西"),
     ("减肥", "节食", "碳水", "少吃", "吃素", "低脂", "热量", "卡路里", "断食", "轻食", "不吃")),
    (("乐器",),
     ("吉他", "钢琴", "小提琴", "大提琴", "架子鼓", "尤克里里", "二胡", "古筝", "笛子", "萨克斯",
      "琵琶", "口琴", "电子琴", "贝斯")),
    (("舞蹈", "跳舞", "什么舞", "啥舞", "哪种舞"),
     ("跳舞", "舞蹈", "街舞", "芭蕾", "拉丁舞", "广场舞", "民族舞", "爵士舞", "国标", "交谊舞",
      "肚皮舞", "现代舞", "古典舞", "探戈", "华尔兹", "恰恰", "舞蹈班")),
    (("通勤", "怎么上班", "怎么去上班", "怎么去公司", "怎么上学", "交通方式"),
     ("地铁", "公交", "骑车", "开车", "打车", "步行", "电动车", "自行车", "单车", "班车")),
    (("害怕", "怕什么", "恐惧", "最怕"), ("害怕", "恐惧", "不敢", "吓人", "吓死", "恐高")),
    (("片子", "电影"), ("电影", "片子")),
    # Shopping said as 买买买, a music box as 八音盒, handmade as 手工 (an event's formal name
    # says 购物, 音乐盒, 手作). Words, not kinds of fact.
    (("买买买", "买东西", "血拼", "剁手"), ("购物", "买买买", "血拼", "采购")),
    (("八音盒",), ("音乐盒", "八音盒")),
    (("手工",), ("手作", "手工", "手制")),
    (("领导", "上司", "顶头上司", "主管", "老板"), ("领导", "上司", "主管", "老板")),
    # 我上司名叫郭梦婷: a name asked as 名字 or 叫什么 is told as 名叫 / 叫做 (NOT_KINDS, as
    # "name").
    (("名字", "叫什么", "叫啥", "姓名", "称呼"), ("名叫", "名字", "叫做", "姓名", "小名")),
    (("房东", "房主"), ("房租", "租金", "房东", "收租", "交租", "租房", "租的")),
    (("老婆", "媳妇", "妻子", "太太", "内人"), ("老婆", "媳妇", "妻子", "太太", "爱人")),
    (("老公", "丈夫"), ("老公", "丈夫", "爱人")),
    (("攒钱", "存钱", "省钱", "攒着", "存着"),
     ("攒钱", "存钱", "省钱", "存款", "攒了", "存了", "首付")),
    (("生孩子", "生了孩子", "生小孩", "生宝宝", "生娃", "生了个", "添丁", "新生儿"),
     ("宝宝", "生了", "出生", "怀孕", "当妈", "当爸", "当姑姑", "当舅舅", "当叔叔", "当阿姨",
      "当奶奶", "当爷爷", "当外婆", "当外公", "满月", "侄子", "侄女", "外甥")),
)


# Rows of words said instead that name no kind of personal fact (keyed by their first key): a
# name is asked of anything ("what's the name of that band?"), so a question saying "name" is
# not taken for one about the asker's own fact, and a line saying "called" is no telling of it.
NOT_KINDS = frozenset({"name", "名字", "boss", "领导", "老婆", "老公", "几号", "多久", "多少人",
                       "在哪儿开", "女儿", "儿子", "weirdest", "called", "coffee", "training",
                       "landlord", "房东", "award", "surface", "how many people", "外国",
                       "weekend", "周末", "best", "color", "颜色", "roommate", "boozy", "relative",
                       "switched to", "cash", "gadget", "pick up how", "haircut", "waterfall",
                       "out of town", "wins", "买买买", "八音盒", "手工",
                       "hump day", "after dark", "trip", "级别", "old man",
                       "old lady", "weather", "before i die", "breeder", "deals",
                       "ride to work", "sucked at", "get over", "console", "most trouble",
                       "ps1", "motto", "out back", "dream job", "as a kid",
                       "blow off steam"})
